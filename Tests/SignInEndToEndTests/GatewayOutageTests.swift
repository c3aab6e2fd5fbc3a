import Foundation
import Support
@testable import TestSupport
import Testing

/// Issue 23 points 1 and 2 on the real binaries: the gateway's answer is the workers' answer — a request outliving the
/// gateway's wait and its listening window is never answered with a timeout, and its retry gets the genuine outcome
/// once the workers give it — and the gateway, like the console and a waiting CLI command, follows a SIGKILLed and restarted local broker
/// as the workers do.
@Suite(.tags(.live, .timed, .outage), .serialized) struct GatewayOutageTests {
    static let basic = ["-u", "\(GatewayProcess.clientID):\(GatewayProcess.clientSecret)"]

    /// Retries `request` (the same key) until its answer is not 503/202, at most `limit`; every answer it saw.
    static func retried(within limit: Duration, _ request: () async throws -> (status: Int, body: String)) async throws -> [(status: Int, body: String)] {
        var answers: [(status: Int, body: String)] = []
        let deadline = ContinuousClock.now + limit
        repeat {
            answers.append(try await request())
            if ![202, 503].contains(answers.last!.status) { break }
            try await Task.sleep(for: .milliseconds(500))
        } while ContinuousClock.now < deadline
        return answers
    }

    @Test func aRequestOutlivingTheWaitIsAnsweredWithTheWorkersAnswer() async throws {
        try await LiveSystem.shared(by: "GatewayOutageTests") { system in
            let email = "outage-\(UUID().uuidString.prefix(8))@example.com"
            _ = try await system.register(email, password: "outage passphrase")
            try await GatewayProcess.with(system, arguments: ["--wait", "2", "--outcome-window", "6"]) { gateway in
                let signIn = [("grant_type", "password"), ("username", email), ("password", "outage passphrase")]
                let key = ["-H", "Idempotency-Key: outage-\(UUID().uuidString.prefix(8))"]
                let lateEmail = "late-\(UUID().uuidString.prefix(8).lowercased())@example.com"
                let newcomer = ["name": "Late", "email": lateEmail, "password": "late passphrase", "code": try await system.code(for: lateEmail, .register)]
                let registrationKey = ["Idempotency-Key": "late-\(UUID().uuidString.prefix(8))"]
                try await system.hold("account-worker")
                do {
                    let waiting = try await gateway.postForm("/oauth/token", signIn, Self.basic + key)
                    #expect(waiting.status == 503 && waiting.header("Retry-After") != nil
                            && GatewayProcess.json(waiting)["error"] as? String == "temporarily_unavailable", "\(waiting.body)")
                    let accepted = try await gateway.postMultipart("/accounts", fields: newcomer, avatar: nil, headers: registrationKey,
                                                                   in: system.directory)
                    #expect(accepted.status == 202, "\(accepted.body)")
                    // Past the gateway's listening window, the worker still held: still no answer, never a cached failure.
                    try await Task.sleep(for: .seconds(8))
                    let again = try await gateway.postForm("/oauth/token", signIn, Self.basic + key)
                    #expect(again.status == 503, "\(again.body)")
                } catch {
                    try await system.resume("account-worker")
                    throw error
                }
                try await system.resume("account-worker")
                let tokens = try await Self.retried(within: .seconds(90)) {
                    let run = try await gateway.postForm("/oauth/token", signIn, Self.basic + key)
                    return (run.status, run.body)
                }
                #expect(tokens.allSatisfy { [200, 503].contains($0.status) }, "\(tokens.map(\.status))")
                let answer = try #require(tokens.last)
                let access = try #require(GatewayProcess.json(answer.body)["access_token"] as? String, "\(answer.body)")
                let once = try await gateway.postForm("/oauth/token", signIn, Self.basic + key)
                #expect(once.status == 200 && once.body == answer.body, "the retry after the answer is not the same answer")
                // The worker, just resumed, may still be working through what queued while it was held: a busy answer
                // (503) is asked again, as an app would.
                let profile = try await Self.retried(within: .seconds(90)) {
                    let run = try await gateway.curl("/me", ["-H", "Authorization: Bearer \(access)"])
                    return (run.status, run.body)
                }
                #expect(profile.last?.status == 200, "\(profile.map(\.status)) \(profile.last?.body ?? "")")
                let registered = try await Self.retried(within: .seconds(90)) {
                    let run = try await gateway.postMultipart("/accounts", fields: newcomer, avatar: nil, headers: registrationKey, in: system.directory)
                    return (run.status, run.body)
                }
                #expect(registered.last?.status == 201, "\(registered.map(\.status)) \(registered.last?.body ?? "")")
                #expect(try system.backends.accounts().accounts().filter { $0.email == newcomer["email"] }.count == 1)
            }
        }
    }

    /// The gateway, the console and a waiting CLI command follow a SIGKILLed local broker to its new address.
    @Test func theGatewayFollowsARestartedLocalBroker() async throws {
        try await LiveSystem.with { system in
            let email = "broker-\(UUID().uuidString.prefix(8))@example.com"
            _ = try await system.register(email, password: "broker passphrase")
            let console = try await Self.startConsole(system)
            defer { console.process.send(SIGTERM) }
            try await GatewayProcess.with(system, arguments: ["--broker-liveness", "4", "--wait", "3"]) { gateway in
                let signIn = [("grant_type", "password"), ("username", email), ("password", "broker passphrase")]
                #expect(try await Self.poll(gateway, "/readyz", until: 200))
                #expect(try await gateway.postForm("/oauth/token", signIn, Self.basic).status == 200)

                await system.installation.killBroker()
                let key = ["-H", "Idempotency-Key: broker-\(UUID().uuidString.prefix(8))"]
                let during = try await gateway.postForm("/oauth/token", signIn, Self.basic + key)
                #expect(during.status == 503 && during.header("Retry-After") != nil, "\(during.body)")
                #expect(try await Self.poll(gateway, "/readyz", until: 503))
                #expect(try await Self.poll(gateway, "/healthz", until: 503), "/healthz never failed with the broker gone")

                // A CLI command started while the broker is gone waits for it and follows it to its new address.
                let command = Task {
                    try await system.registrar(["code", "request", "--email", email, "--purpose", "login", "--timeout", "120"])
                }
                try await Task.sleep(for: .seconds(2))
                try await system.installation.startBrokerAgain()
                let answers = try await Self.retried(within: .seconds(120)) {
                    let run = try await gateway.postForm("/oauth/token", signIn, Self.basic + key)
                    return (run.status, run.body)
                }
                #expect(answers.last?.status == 200 && GatewayProcess.json(answers.last?.body ?? "")["access_token"] != nil,
                        "\(answers.map(\.status)) \(answers.last?.body ?? "")")
                #expect(try await Self.poll(gateway, "/readyz", until: 200))
                #expect(try await gateway.curl("/healthz").status == 200)
                #expect(gateway.logText.contains("the local broker moved"))
                let cli = try await command.value
                #expect(cli.status == 0 && cli.output.contains("sent"), "\(cli.output)")

                // The console reads the new broker: a registration made there is on its page.
                let registered = try await system.registrar(["register", "--email", "after-\(email)", "--name", "After"], input: ["after passphrase"],
                                                            mailedCode: .register, to: "after-\(email)")
                let registrationId = try #require(registered.output.split(separator: " ").dropFirst().first.map { String($0.dropLast()) },
                                                  "\(registered.output)")
                #expect(registered.status == 0 && registered.output.hasPrefix("completed"), "\(registered.output)")
                let shown = try await Self.poll(console.url, showing: registrationId)
                let log = (try? String(contentsOfFile: system.logs + "/console.log", encoding: .utf8)) ?? ""
                #expect(shown, "the console never read the restarted broker: \(log.suffix(3000))")
            }
        }
    }

    static let operatorCredentials = "ops:correct horse battery staple"

    /// A console on `system` refreshing every second, with an operator of `operatorCredentials`.
    static func startConsole(_ system: LiveSystem) async throws -> (process: ChildProcess, url: String) {
        let operators = system.directory + "/console-operators"
        let add = try ChildProcess(Binaries.path("registrar"), ["console", "add-operator", "ops", "--operators", operators], input: .pipe)
        add.write(Array((Self.operatorCredentials.split(separator: ":", maxSplits: 1)[1] + "\n").utf8))
        add.closeInput()
        while await add.nextLine() != nil {}
        #expect(await add.waitForExit() == 0)
        let console = try ChildProcess(Binaries.path("registrar"), ["console", "--listen", "127.0.0.1:0", "--refresh", "1",
                                                                    "--data-dir", system.directory, "--operators", operators],
                                       environment: system.backends.environment, errors: .file("\(system.logs)/console.log"))
        return (console, try #require(await console.nextLine()))
    }

    /// Whether the console's page at `url` shows `text` within a minute.
    static func poll(_ url: String, showing text: String) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if (try? runCommand("/usr/bin/curl", ["-s", "-u", Self.operatorCredentials, url]))?.contains(text) == true { return true }
            try await Task.sleep(for: .milliseconds(500))
        }
        return false
    }

    /// Whether `path` answers `status` within a minute.
    static func poll(_ gateway: GatewayProcess, _ path: String, until status: Int) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if try await gateway.curl(path).status == status { return true }
            try await Task.sleep(for: .milliseconds(300))
        }
        return false
    }
}
