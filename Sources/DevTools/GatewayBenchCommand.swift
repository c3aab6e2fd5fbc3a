import Crypto
import Domain
import Foundation
import Gateway
import HTTPServer
import Installation
import RegistrarClient
import Support

/// `registrar-dev bench gateway`: requests/s and p50/p99 of `POST /email/getCode` and of refresh-token grants through
/// the gateway (plain HTTP and TLS on loopback, driven by `wrk`), next to the same requests through `RegistrarClient`
/// without HTTP, on a local broker and the four workers: the difference is the edge's own cost. Each series follows a
/// 1 s warm-up, so that connection and TLS set-up and first requests stay out of its figures. Prints figures only.
public enum GatewayBenchCommand {
    static let spec = CommandSpec(
        name: "registrar-dev bench gateway", summary: "requests/s and latency through the gateway and through the client library",
        usage: "[--seconds N] [--connections N]",
        options: [.value("seconds", "Seconds each series runs", default: "10"), .value("connections", "Requests in flight at once", default: "4")])

    public static func run(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: spec) { parsed in
            let (seconds, connections) = (max(1, try parsed.integer("seconds") ?? 10), max(1, try parsed.integer("connections") ?? 4))
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("registrar-bench-\(UUID().uuidString.prefix(8))").path
            let installation = try await LocalInstallation(at: directory, binaries: LocalInstallation.besideThisBinary)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            do {
                try await RegistrarClient.with(kafka: installation.kafka(clientID: "registrar-bench"), publicKey: installation.publicKey,
                                               verifier: try installation.outcomeVerifier(), name: "registrar-bench") { client in
                    try await bench(client, in: installation.directory, seconds: seconds, connections: connections)
                }
            } catch {
                await installation.stop()
                throw error
            }
            await installation.stop()
            return .success
        }
    }

    private static func bench(_ client: RegistrarClient, in directory: String, seconds: Int, connections: Int) async throws {
        let secret = SecureRandom.token(bytes: 16)
        try #"{"clients":[{"id":"bench","secret":"\#(secret)"}]}"#.write(toFile: directory + "/clients.json", atomically: true, encoding: .utf8)
        let log = Logger(component: "gateway", fileDescriptor: open(directory + "/logs/gateway.log", O_WRONLY | O_CREAT | O_APPEND, 0o600))
        func gateway(tls: HTTPServerConfiguration.TLS?) throws -> HTTPServer {
            var configuration = GatewayConfiguration(clients: try OAuthClients.load(from: directory + "/clients.json"), jwks: { "{}" }, tls: tls != nil)
            (configuration.requestsPerMinutePerAddress, configuration.codesPerHourPerEmail, configuration.signInsPerMinutePerEmail) = (1 << 30, 1 << 30, 1 << 30)
            let gateway = Gateway(clients: ClientSupply(serving: client), replySecret: client.replySecret, staging: nil, configuration: configuration,
                                  logger: log)
            return try HTTPServer(HTTPServerConfiguration(host: "127.0.0.1", port: 0, tls: tls, bodyLimit: Gateway.bodyLimit), handler: gateway.handle)
        }
        let plain = try gateway(tls: nil)
        let secure = try gateway(tls: try SelfSignedCertificate.make(in: directory))
        let urls = [("HTTP", "http://127.0.0.1:\(plain.port)"), ("TLS", "https://127.0.0.1:\(secure.port)")]

        // One account; a refresh-token chain per connection for each series and its warm-up (each grant rotates its token).
        let password = SecureRandom.token(bytes: 16)
        let code = try await MailedCodes(directory: directory + "/outbox").code(for: "bench@example.com", .register, with: client)
        _ = try await client.register(try client.registration(email: "bench@example.com", password: password, code: code, name: "Bench"),
                                      timeout: .seconds(60))
        var chains: [[String]] = []
        for _ in 0..<(1 + 2 * urls.count) {
            var set: [String] = []
            for _ in 0..<connections {
                guard case (_, let pair?) = try await client.requestTokens(.password, email: "bench@example.com", credential: password,
                                                                             timeout: .seconds(60)) else { throw InstallationFailure("no tokens") }
                set.append(pair.refreshToken)
            }
            chains.append(set)
        }
        func chainFile(_ index: Int) throws -> String {
            let path = directory + "/chains-\(index).txt"
            try chains[index].joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        let basic = Data("bench:\(secret)".utf8).base64EncodedString()

        print("\(connections) requests in flight, \(seconds) s per series after a 1 s warm-up on the same connections' kind "
              + "(connection and TLS set-up out of the figures); load average before: \(loadAverage())")
        print("series                                         req/s     p50 ms    p99 ms  failures")
        let codeRequest: @Sendable (Int, Int) async throws -> Bool = { index, _ in
            let request = CodeRequested(requestId: UUID().uuidString.lowercased(), email: "lib-\(UUID().uuidString.prefix(13))@bench.example",
                                        purpose: .register)
            guard case .codeSent = try await client.send(.codeRequested(request), timeout: .seconds(60)) else { return false }
            return true
        }
        _ = try await library(connections: connections, seconds: 1, codeRequest)
        let codesThroughLibrary = try await library(connections: connections, seconds: seconds, codeRequest)
        show("CodeRequested via RegistrarClient", codesThroughLibrary)
        for (kind, url) in urls {
            _ = try await WrkRun.run(url, script: Scripts.codes, args: ["\(kind)-warm"], connections: connections, seconds: 1, in: directory)
            let codes = try await WrkRun.run(url, script: Scripts.codes, args: [kind], connections: connections, seconds: seconds, in: directory)
            show("POST /email/getCode via gateway, \(kind) (wrk)", codes, against: codesThroughLibrary)
        }

        let tokens = TokenChains(chains[0])
        let refresh: @Sendable (Int, Int) async throws -> Bool = { index, _ in
            guard case (_, let pair?) = try await client.requestTokens(.refreshToken, email: nil, credential: tokens[index],
                                                                         timeout: .seconds(60)) else { return false }
            tokens[index] = pair.refreshToken
            return true
        }
        _ = try await library(connections: connections, seconds: 1, refresh)
        let refreshesThroughLibrary = try await library(connections: connections, seconds: seconds, refresh)
        show("refresh TokenRequested via RegistrarClient", refreshesThroughLibrary)
        for (index, (kind, url)) in urls.enumerated() {
            let script = Scripts.refresh(basic: basic)
            _ = try await WrkRun.run(url, script: script, args: [try chainFile(1 + 2 * index)], connections: connections, seconds: 1, in: directory)
            let refreshes = try await WrkRun.run(url, script: script, args: [try chainFile(2 + 2 * index)], connections: connections,
                                                 seconds: seconds, in: directory)
            show("refresh_token grant via gateway, \(kind) (wrk)", refreshes, against: refreshesThroughLibrary)
        }
        print("edge cost: the gateway's rate below the library's and its p50 above it, per series (goal: at most 5 %)")
        print("load average after: \(loadAverage())")
        await plain.stop()
        await secure.stop()
    }

    /// `connections` loops each running `request(loop, count)` for `seconds`: the rate and latencies of the successes.
    private static func library(connections: Int, seconds: Int,
                                _ request: @escaping @Sendable (Int, Int) async throws -> Bool) async throws -> WrkRun {
        let end = ContinuousClock.now + .seconds(seconds)
        let results = try await withThrowingTaskGroup(of: (times: [Double], failures: Int).self) { group in
            for index in 0..<connections {
                group.addTask {
                    var (times, failures, count) = ([Double](), 0, 0)
                    while ContinuousClock.now < end {
                        let start = ContinuousClock.now
                        count += 1
                        if try await request(index, count) { times.append((ContinuousClock.now - start).timeInterval * 1000) } else { failures += 1 }
                    }
                    return (times, failures)
                }
            }
            return try await group.reduce(into: [(times: [Double], failures: Int)]()) { $0.append($1) }
        }
        let times = results.flatMap(\.times).sorted()
        let rank = { (fraction: Double) in times.isEmpty ? 0 : times[min(times.count - 1, Int(Double(times.count - 1) * fraction))] }
        return WrkRun(requestsPerSecond: Double(times.count) / Double(seconds), p50: rank(0.5), p99: rank(0.99),
                      failures: results.map(\.failures).reduce(0, +))
    }

    /// Prints `run`'s figures; against the library's `baseline`, also the edge's cost in rate and in p50.
    private static func show(_ name: String, _ run: WrkRun, against baseline: WrkRun? = nil) {
        var line = name.padding(toLength: 44, withPad: " ", startingAt: 0)
            + String(format: " %8.1f  %8.2f  %8.2f  %8d", run.requestsPerSecond, run.p50, run.p99, run.failures)
        if let baseline {
            line += String(format: "   edge cost: rate %+.1f %%, p50 %+.1f %%",
                           100 * (1 - run.requestsPerSecond / max(baseline.requestsPerSecond, 0.001)),
                           100 * (run.p50 / max(baseline.p50, 0.001) - 1))
        }
        print(line)
    }

    /// A self-signed P-256 certificate for 127.0.0.1 (OpenSSL), for the TLS series.
    enum SelfSignedCertificate {
        static func make(in directory: String) throws -> HTTPServerConfiguration.TLS {
            let (certificate, key) = (directory + "/bench-cert.pem", directory + "/bench-key.pem")
            let openssl = Process()
            openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            openssl.arguments = ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
                                 "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", certificate]
            openssl.standardOutput = FileHandle.nullDevice
            openssl.standardError = FileHandle.nullDevice
            try openssl.run()
            openssl.waitUntilExit()
            guard openssl.terminationStatus == 0 else { throw InstallationFailure("openssl could not make a certificate") }
            return try HTTPServerConfiguration.TLS(certificateFile: certificate, keyFile: key)
        }
    }

    private static func loadAverage() -> String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3).joined(separator: " ")
    }

    /// The wrk scripts: one connection per thread, so a thread's requests follow each other.
    enum Scripts {
        /// A code for a new address each request (the run's tag, given after `--`, keeps runs apart).
        static let codes = """
            local threads = 0
            function setup(thread) threads = threads + 1; thread:set("tid", threads) end
            function init(args) run = args[1] end
            local count = 0
            request = function()
              count = count + 1
              return wrk.format("POST", "/email/getCode", {["Content-Type"] = "application/x-www-form-urlencoded"},
                                "type=1&emailAddress=wrk-" .. run .. "-" .. tid .. "-" .. count .. "%40bench.example")
            end
            """

        /// The thread's refresh-token chain (line `tid` of the file given), each answer's token used next.
        static func refresh(basic: String) -> String {
            """
            local threads = 0
            function setup(thread) threads = threads + 1; thread:set("tid", threads) end
            function init(args)
              local line = 0
              for token in io.lines(args[1]) do line = line + 1; if line == tid then current = token end end
            end
            request = function()
              return wrk.format("POST", "/oauth/token", {["Content-Type"] = "application/x-www-form-urlencoded",
                                ["Authorization"] = "Basic \(basic)"}, "grant_type=refresh_token&refresh_token=" .. current)
            end
            response = function(status, headers, body)
              local next = body:match('"refresh_token":"([^"]+)"')
              if next then current = next end
            end
            """
        }
    }
}

/// The refresh token each library loop presents next.
private final class TokenChains: @unchecked Sendable {
    private let lock = NSLock()
    private var tokens: [String]

    public init(_ tokens: [String]) { self.tokens = tokens }

    subscript(index: Int) -> String {
        get { lock.withLock { tokens[index] } }
        set { lock.withLock { tokens[index] = newValue } }
    }
}
