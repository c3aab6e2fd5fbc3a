import Foundation
import Support
@testable import TestSupport

/// `registrar gateway` as a process of its own in front of a live system, on any free port, with the
/// example client configuration (`deploy/gateway-clients.json`).
final class GatewayProcess: Sendable {
    static let clientsFile = Binaries.packageRoot + "/deploy/gateway-clients.json"
    static let clientID = "erban-client"
    static let clientSecret = "local-demo-secret-change-me"

    let process: ChildProcess
    /// `http://127.0.0.1:port` or `https://…`.
    let url: String
    let log: String
    /// What curl needs to trust it: the certificate it serves, when TLS.
    let trust: [String]

    /// Starts a gateway for `system` with `arguments`; TLS with the certificate and key of `tls`, when given.
    init(for system: LiveSystem, tls: (certificate: String, key: String)? = nil, clients: String = clientsFile, arguments: [String] = []) async throws {
        trust = tls.map { ["--cacert", $0.certificate] } ?? []
        log = "\(system.logs)/gateway-\(UUID().uuidString.prefix(8)).log"
        let secure = tls.map { ["--tls-cert", $0.certificate, "--tls-key", $0.key] } ?? []
        process = try ChildProcess(Binaries.path("registrar"),
                                   ["gateway", "--data-dir", system.directory, "--port", "0", "--clients", clients] + secure + arguments,
                                   environment: system.backends.environment, errors: .file(log))
        guard let url = await process.nextLine(), url.hasPrefix("http") else {
            await process.stop()
            throw HarnessError("the gateway did not start; see \(log)")
        }
        self.url = url
    }

    /// Everything it logged so far.
    var logText: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    func stop() async { _ = await process.stop() }

    /// Runs `body` with a started gateway and stops it afterwards.
    static func with(_ system: LiveSystem, tls: (certificate: String, key: String)? = nil, clients: String = clientsFile,
                     arguments: [String] = [], _ body: (GatewayProcess) async throws -> Void) async throws {
        let gateway = try await GatewayProcess(for: system, tls: tls, clients: clients, arguments: arguments)
        do {
            try await body(gateway)
        } catch {
            await gateway.stop()
            throw error
        }
        await gateway.stop()
    }

    /// A POST of `fields` form-encoded by curl (`--data-urlencode`), with `extra` curl arguments.
    func postForm(_ path: String, _ fields: [(String, String)], _ extra: [String] = []) async throws -> CurlRun {
        try await CurlRun.run(trust + fields.flatMap { ["--data-urlencode", "\($0.0)=\($0.1)"] } + extra + [url + path])
    }

    /// curl with `arguments` against `path`.
    func curl(_ path: String, _ arguments: [String] = []) async throws -> CurlRun {
        try await CurlRun.run(trust + arguments + [url + path])
    }

    /// The port it listens on.
    var port: Int { Int(url.split(separator: ":").last ?? "") ?? 0 }

    /// curl with `arguments` against `path`, its connection from the local address `source` (e.g. `127.0.0.2`: another
    /// client as far as the gateway can tell).
    func curl(_ path: String, from source: String, _ arguments: [String] = []) async throws -> CurlRun {
        try await curl(path, ["--interface", source] + arguments)
    }

    /// `POST /accounts` as Python `requests` sends a form with a file: `multipart/form-data` with a boundary it draws
    /// anew for every request, as every app's HTTP library does. Returns the status, the content type sent and the body.
    func postMultipart(_ path: String, fields: [String: String], avatar: [UInt8]?, headers: [String: String] = [:],
                       in directory: String) async throws -> (status: Int, contentType: String, body: String) {
        let avatarPath = directory + "/avatar-\(UUID().uuidString.prefix(8)).jpg"
        if let avatar { try Data(avatar).write(to: URL(fileURLWithPath: avatarPath)) }
        defer { try? FileManager.default.removeItem(atPath: avatarPath) }
        let script = """
        import json, sys, requests
        url, ca, fields, avatar, headers = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4], json.loads(sys.argv[5])
        parts = {name: (None, value) for name, value in fields.items()}
        if avatar != "-":
            parts["avatar"] = ("me.jpg", open(avatar, "rb"), "image/jpeg")
        answer = requests.post(url, files=parts, headers=headers, verify=ca if ca != "-" else True, timeout=120)
        print(answer.status_code)
        print(answer.request.headers["Content-Type"])
        print(answer.text)
        """
        let fieldsJSON = String(decoding: try JSONSerialization.data(withJSONObject: fields), as: UTF8.self)
        let headersJSON = String(decoding: try JSONSerialization.data(withJSONObject: headers), as: UTF8.self)
        let process = try ChildProcess("/usr/bin/python3", ["-c", script, url + path, trust.last ?? "-", fieldsJSON,
                                                            avatar == nil ? "-" : avatarPath, headersJSON], errors: .discarded)
        var lines: [String] = []
        while let line = await process.nextLine() { lines.append(line) }
        _ = await process.waitForExit()
        guard lines.count >= 3, let status = Int(lines[0]) else { throw HarnessError("the multipart client failed: \(lines)") }
        return (status, lines[1], lines.dropFirst(2).joined(separator: "\n"))
    }

    /// The JSON object of an answer's body.
    static func json(_ run: CurlRun) -> [String: Any] { json(run.body) }

    /// The JSON object of a body.
    static func json(_ body: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]) ?? [:]
    }
}
