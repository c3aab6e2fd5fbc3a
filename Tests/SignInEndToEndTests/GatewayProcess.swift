import Foundation
import Support
@testable import TestSupport

/// `registrar gateway` as a process of its own in front of a live system, on any free port, with the
/// example client configuration (`deploy/gateway-clients.json`).
final class GatewayProcess {
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
    init(for system: LiveSystem, tls: (certificate: String, key: String)? = nil, arguments: [String] = []) async throws {
        trust = tls.map { ["--cacert", $0.certificate] } ?? []
        log = "\(system.logs)/gateway-\(UUID().uuidString.prefix(8)).log"
        let secure = tls.map { ["--tls-cert", $0.certificate, "--tls-key", $0.key] } ?? []
        process = try ChildProcess(Binaries.path("registrar"),
                                   ["gateway", "--data-dir", system.directory, "--port", "0", "--clients", Self.clientsFile] + secure + arguments,
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
    static func with(_ system: LiveSystem, tls: (certificate: String, key: String)? = nil, arguments: [String] = [],
                     _ body: (GatewayProcess) async throws -> Void) async throws {
        let gateway = try await GatewayProcess(for: system, tls: tls, arguments: arguments)
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

    /// The JSON object of an answer's body.
    static func json(_ run: CurlRun) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(run.body.utf8)) as? [String: Any]) ?? [:]
    }
}
