import Foundation
import Support
@testable import TestSupport
import Testing

/// Issue 23 point 3 for the edges, on the real binaries: the gateway and the console started while their broker is
/// down — its address known but nothing answering there, or the local broker not having written its address yet —
/// neither exit nor restart in a loop. They stay alive, say on `/readyz` why they are not ready, and serve once the
/// broker is back: a request the gateway took during the outage gets its genuine answer on a retry with its key.
@Suite(.tags(.live, .timed, .outage), .serialized) struct EdgeStartDuringOutageTests {
    @Test func theGatewayAndTheConsoleStartedWhileTheBrokerIsDownServeOnceItIsBack() async throws {
        try await LiveSystem.with { system in
            #expect(try await ConsoleTests.addOperator(to: system.directory + "/console-operators") == 0)
            await system.installation.killBroker()

            // Its address known, nothing answering there: they serve at once, not ready.
            let gateway = try Self.start(["gateway", "--port", "0", "--clients", Self.clients, "--wait", "2"], "gateway-down", in: system)
            defer { gateway.send(SIGKILL) }
            let console = try Self.start(Self.console(system), "console-down", in: system)
            defer { console.send(SIGKILL) }
            let gatewayURL = try #require(await gateway.nextLine(), "the gateway did not start; see \(system.logs)/gateway-down.log")
            let consoleURL = try #require(await console.nextLine(), "the console did not start; see \(system.logs)/console-down.log")
            let gatewayPort = try await OperationsEndpointTests.port(loggedIn: system.logs + "/gateway-down.log")
            let consolePort = try await OperationsEndpointTests.port(loggedIn: system.logs + "/console-down.log")
            let gatewayWaits = try await Self.readiness(of: gatewayPort, becomes: 503)
            #expect(gatewayWaits.contains("broker cannot be reached"), "\(gatewayWaits)")
            #expect(try await CurlRun.run([gatewayURL + "/readyz"]).status == 503)
            let consoleWaits = try await Self.readiness(of: consolePort, becomes: 503)
            #expect(consoleWaits.contains("cannot read the") || consoleWaits.contains("has not read the topics"), "\(consoleWaits)")
            let key = "edge-\(UUID().uuidString.prefix(8))"
            let email = "edge-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            let during = try await Self.requestCode(gatewayURL, email: email, key: key)
            #expect([202, 503].contains(during.status), "\(during.status) \(during.body)")

            // No address yet (the local broker not started): they wait for it, alive and saying so.
            try FileManager.default.removeItem(atPath: system.directory + "/broker.bootstrap")
            let waitingGateway = try Self.start(["gateway", "--port", "0", "--clients", Self.clients], "gateway-unknown", in: system)
            defer { waitingGateway.send(SIGKILL) }
            let waitingConsole = try Self.start(Self.console(system), "console-unknown", in: system)
            defer { waitingConsole.send(SIGKILL) }
            for log in ["gateway-unknown", "console-unknown"] {
                let port = try await OperationsEndpointTests.port(loggedIn: "\(system.logs)/\(log).log")
                let waiting = try await Self.readiness(of: port, becomes: 503)
                #expect(waiting.contains("no broker address yet") && waiting.contains("broker.bootstrap"), "\(log): \(waiting)")
                #expect(try await OperationsEndpointTests.get(port, "/healthz").status == 200, "\(log) is alive")
            }
            try await Task.sleep(for: .seconds(3))
            for process in [gateway, console, waitingGateway, waitingConsole] { #expect(process.isRunning, "\(process) exited") }

            try await system.installation.startBrokerAgain()
            _ = try await Self.readiness(of: gatewayPort, becomes: 200, within: .seconds(60))
            _ = try await Self.readiness(of: consolePort, becomes: 200, within: .seconds(60))
            var answer = during
            let deadline = ContinuousClock.now + .seconds(60)
            while [202, 503].contains(answer.status), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(500))
                answer = try await Self.requestCode(gatewayURL, email: email, key: key)
            }
            #expect(answer.status == 200 && answer.body.contains("\"purpose\":\"login\""), "\(answer.status) \(answer.body)")
            #expect(try await ConsoleTests.curl(consoleURL, credentials: ConsoleTests.credentials).status == 200)

            let laterGateway = try #require(await waitingGateway.nextLine(), "the waiting gateway never served")
            let laterConsole = try #require(await waitingConsole.nextLine(), "the waiting console never served")
            let later = try await Self.requestCode(laterGateway, email: "later-\(email)", key: "later-\(key)")
            #expect([200, 202].contains(later.status), "\(later.status) \(later.body)")
            #expect(try await ConsoleTests.curl(laterConsole, credentials: ConsoleTests.credentials).status == 200)
            for process in [gateway, console, waitingGateway, waitingConsole] { #expect(process.isRunning, "\(process) exited") }
        }
    }

    static let clients = Binaries.packageRoot + "/deploy/gateway-clients.json"

    /// The console's arguments on `system`, refreshing every second.
    static func console(_ system: LiveSystem) -> [String] {
        ["console", "--listen", "127.0.0.1:0", "--refresh", "1", "--operators", system.directory + "/console-operators"]
    }

    /// `registrar` with `arguments` on `system`'s data directory, its operations endpoint on a free port, logging to `<log>.log`.
    static func start(_ arguments: [String], _ log: String, in system: LiveSystem) throws -> ChildProcess {
        try ChildProcess(Binaries.path("registrar"), arguments + ["--data-dir", system.directory, "--metrics-listen", "127.0.0.1:0"],
                         environment: system.backends.environment, errors: .file("\(system.logs)/\(log).log"))
    }

    /// `POST /email/getCode` (login) for `email` with the `Idempotency-Key` `key`.
    static func requestCode(_ gateway: String, email: String, key: String) async throws -> CurlRun {
        try await CurlRun.run(["--data-urlencode", "emailAddress=\(email)", "--data-urlencode", "type=2", "-H", "Idempotency-Key: \(key)",
                               gateway + "/email/getCode"])
    }

    /// Polls `/readyz` on `port` until it answers `status`; returns the body then.
    static func readiness(of port: Int, becomes status: Int, within limit: Duration = .seconds(30)) async throws -> String {
        let deadline = ContinuousClock.now + limit
        var last = (status: 0, body: "")
        repeat {
            last = try await OperationsEndpointTests.get(port, "/readyz")
            if last.status == status { return last.body }
            try await Task.sleep(for: .milliseconds(200))
        } while ContinuousClock.now < deadline
        throw HarnessError("/readyz on \(port) did not answer \(status) within \(limit); last \(last.status): \(last.body)")
    }
}
