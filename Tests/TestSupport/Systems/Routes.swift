import Console
import Domain
import Foundation
import Gateway
import HTTPServer
import RegistrarClient
import Registration
import Testing

/// The route tier: the gateway's and the console's handlers called in the test process, with no socket and no
/// process of their own (hummingbird's `.router` test mode, beside the live `.live` one of `GatewayProcess` and
/// `ConsoleTests`), in front of the in-process workers. The route suites share one system (`InProcessSystem.shared`);
/// each test keeps to its own emails and client address.
struct Routes {
    let system: InProcessSystem
    let gateway: Gateway
    let configuration: GatewayConfiguration
    /// The client address of this test's requests (each test its own, so per-address limits are its own).
    let address: String

    static let clientID = "route-client"
    static let clientSecret = "route-client-secret"

    /// A gateway on the shared system, configured by `configure`.
    static func gateway(_ configure: (inout GatewayConfiguration) -> Void = { _ in }) async throws -> Routes {
        let system = try await InProcessSystem.shared()
        let clients = system.directory + "/route-clients.json"
        if !FileManager.default.fileExists(atPath: clients) {
            try #"{"clients":[{"id":"\#(clientID)","secret":"\#(clientSecret)"}]}"#.write(toFile: clients, atomically: true, encoding: .utf8)
        }
        let jwks = try String(contentsOfFile: system.directory + "/keys/jwks.json", encoding: .utf8)
        var configuration = GatewayConfiguration(clients: try OAuthClients.load(from: clients), jwks: { jwks }, tls: true)
        // Answers wait for their outcome however loaded the machine is; the tests of the 202 and 503 answers set their own.
        configuration.wait = configuration.listening
        configure(&configuration)
        let gateway = Gateway(clients: ClientSupply(serving: system.client), replySecret: system.client.replySecret,
                              staging: try system.backends.objects(), configuration: configuration)
        return Routes(system: system, gateway: gateway, configuration: configuration, address: "10.\(UInt8.random(in: 0...255)).\(UInt8.random(in: 0...255)).\(UInt8.random(in: 1...254))")
    }

    /// A fresh email for this test.
    static func email(_ label: String) -> String { "\(label)-\(UUID().uuidString.prefix(8).lowercased())@example.com" }

    /// A GET, screened and answered as the server would (`Gateway.respond(to:)`).
    func get(_ path: String, headers: [(String, String)] = []) async -> Answer {
        await send("GET", path, headers: headers)
    }

    /// A request of `method` without a body.
    func send(_ method: String, _ path: String, headers: [(String, String)] = []) async -> Answer {
        Answer(await gateway.respond(to: HTTPRequest(method: method, path: path, headers: HTTPHeaders(headers), clientAddress: address)))
    }

    /// A form-encoded POST (or another `method`) of `fields`.
    func post(_ path: String, form fields: [(String, String)], headers: [(String, String)] = [], method: String = "POST") async -> Answer {
        let body = fields.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
        return await post(path, body: Array(body.utf8), type: "application/x-www-form-urlencoded", headers: headers, method: method)
    }

    /// A POST (or another `method`) of `body` as `type`.
    func post(_ path: String, body: [UInt8], type: String?, headers: [(String, String)] = [], method: String = "POST") async -> Answer {
        let all = (type.map { [("Content-Type", $0)] } ?? []) + headers
        return Answer(await gateway.respond(to: HTTPRequest(method: method, path: path, headers: HTTPHeaders(all), body: body, clientAddress: address)))
    }

    /// `fields` and `files` as `multipart/form-data`, with a boundary of its own each time (as an app's HTTP library does).
    func postMultipart(_ path: String, _ fields: [(String, String)], files: [(name: String, bytes: [UInt8])] = [],
                       headers: [(String, String)] = [], method: String = "POST") async -> Answer {
        let boundary = "route-\(UUID().uuidString)"
        var body: [UInt8] = []
        for (name, value) in fields {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        for file in files {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(file.name)\"; filename=\"f.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n".utf8)
            body += file.bytes + Array("\r\n".utf8)
        }
        body += Array("--\(boundary)--\r\n".utf8)
        return await post(path, body: body, type: "multipart/form-data; boundary=\(boundary)", headers: headers, method: method)
    }

    /// The client's credentials as `client_id` and `client_secret` fields.
    static let clientFields = [("client_id", clientID), ("client_secret", clientSecret)]

    /// Tokens for `email` and `password` through the gateway.
    func tokens(_ email: String, _ password: String) async throws -> (access: String, refresh: String) {
        let answer = await post("/oauth/token", form: [("grant_type", "password"), ("username", email), ("password", password)] + Self.clientFields)
        let access = try #require(answer.json["access_token"] as? String, "\(answer)")
        return (access, try #require(answer.json["refresh_token"] as? String))
    }

    private static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
    }

    /// An answer, with its body read as JSON.
    struct Answer: CustomStringConvertible {
        var response: HTTPResponse
        var status: Int { response.status }
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:] }
        var error: String? { json["error"] as? String }
        func header(_ name: String) -> String? { response.headers[name] }
        var text: String { String(decoding: response.body, as: UTF8.self) }
        var description: String { "\(status) \(text)" }

        init(_ response: HTTPResponse) { self.response = response }
    }
}
