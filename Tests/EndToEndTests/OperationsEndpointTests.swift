import Domain
import Foundation
import Installation
import Support
@testable import TestSupport
import Testing

/// Every worker and the gateway serve `/metrics`, `/healthz` and `/readyz` on `--metrics-listen`; a fresh process
/// serves every series it can record (at zero) before any event, `process_*`, its build, the lag of every partition it
/// holds; a real Prometheus (Debian `prometheus`) scrapes them, counts the registrations the test made, evaluates the
/// shipped alert rules and answers every query of the shipped Grafana dashboard; `promtool` accepts each exposition;
/// `/readyz` says why while a dependency fails.
@Suite(.tags(.live, .timed), .serialized) struct OperationsEndpointTests {
    static let workers = LocalInstallation.workerNames
    static let listen = Dictionary(uniqueKeysWithValues: workers.map { ($0, ["--metrics-listen", "127.0.0.1:0"]) })
    /// The topics each worker reads.
    static let inputs = [
        "account-worker": [Topic.registrationRequests, Topic.registrationReplies, Topic.registrationOutcomes, Topic.authRequests,
                           Topic.accountRequests, Topic.accountReplies],
        "image-worker": [Topic.imageCommands], "profile-worker": [Topic.profileCommands], "code-dispatch-worker": [Topic.codeRequests],
    ]

    @Test func prometheusScrapesEveryProcessAndAnswersEveryDashboardQuery() async throws {
        try await LiveSystem.with(extraArguments: Self.listen) { system in
            let gatewayLog = system.logs + "/gateway.log"
            let gateway = try ChildProcess(Binaries.path("registrar"), [
                "gateway", "--data-dir", system.directory, "--port", "0", "--clients", Binaries.packageRoot + "/deploy/gateway-clients.json",
                "--metrics-listen", "127.0.0.1:0",
            ], environment: system.backends.environment, errors: .file(gatewayLog))
            defer { gateway.send(SIGTERM) }
            let url = try #require(await gateway.nextLine(), "the gateway's URL")
            var ports = try await Self.ports(of: system)
            ports["gateway"] = try await Self.port(loggedIn: gatewayLog)
            for port in ports.values { try await Self.waitUntilReady(port) }

            // Before any event: every family, its series at zero, the lag of every partition each worker holds.
            for (process, port) in ports {
                let exposition = try await Self.fresh(process, port)
                #expect(try await Self.promtool(exposition).isEmpty, "promtool on \(process)")
            }

            let hashes = #"registrar_argon2id_duration_seconds_count{operation="hash"}"#
            let hashesBefore = Self.value(of: hashes, in: try await Self.get(ports["account-worker"]!, "/metrics").body) ?? 0
            let requests = try await (0..<3).asyncMap { try await system.request(email: "scraped\($0)@example.com") }
            for request in requests {
                guard case .registrationCompleted = try await system.send(.registrationRequested(request)) else {
                    Issue.record("registration \(request.email) did not complete"); return
                }
            }
            let code = try await ConsoleTests.curl(url + "/email/getCode", form: "emailAddress=scraped0%40example.com&type=2")
            #expect(code.status == 200, "\(code.body)")
            for (process, port) in ports {
                let (status, body) = try await Self.get(port, "/metrics")
                #expect(status == 200)
                #expect(try await Self.promtool(body).isEmpty, "promtool on \(process)")
                #expect(try await Self.get(port, "/healthz").status == 200)
            }
            let (_, accountMetrics) = try await Self.get(ports["account-worker"]!, "/metrics")
            #expect(Self.value(of: hashes, in: accountMetrics) == hashesBefore + 3, "one argon2id hash per registration")

            let rules = Binaries.packageRoot + "/deploy/prometheus/registrar-alerts.yml"
            try await Prometheus.with(targets: ports.values.sorted(), ruleFiles: [rules]) { prometheus in
                try await prometheus.waitFor("count(up == 1)", toBe: "5")
                try await prometheus.waitFor("sum(registrar_outcomes_total{type=\"RegistrationCompleted\"})", toBe: "3")
                try await prometheus.waitFor(
                    "sum(registrar_messages_total{worker=\"profile-worker\",type=\"WriteProfile\",result=\"handled\"})", toBe: "3")
                try await prometheus.waitFor("sum(registrar_gateway_requests_total{endpoint=\"/email/getCode\",status=\"200\"})", toBe: "1")
                for (title, query) in try Self.dashboardQueries() {
                    try await prometheus.waitForData(query, "the dashboard's \"\(title)\"")
                }
                let loaded = try await prometheus.rules()
                let declared = try String(contentsOfFile: rules, encoding: .utf8).components(separatedBy: "- alert: ").count - 1
                #expect(declared > 0 && loaded.count == declared, "every alert rule loaded: \(loaded.count) of \(declared)")
                for rule in loaded {
                    #expect(rule["health"] as? String == "ok", "\(rule["name"] ?? "?"): \(rule["lastError"] ?? "")")
                }
            }
        }
    }

    /// Checks that `process`'s first exposition, scraped before any event, has every family and its series at zero;
    /// returns it.
    static func fresh(_ process: String, _ port: Int) async throws -> String {
        let common = ["process_cpu_seconds_total ", "process_resident_memory_bytes ", "process_virtual_memory_bytes ", "process_open_fds ",
                      "process_max_fds ", "process_start_time_seconds ", "registrar_build_info{version=\"\(RegistrarVersion.current)\"} 1"]
        guard let worker = workers.first(where: { $0 == process }) else {
            let exposition = try await get(port, "/metrics").body
            for line in common + ["registrar_gateway_requests_in_flight 0", #"registrar_gateway_requests_total{endpoint="/oauth/token",status="503"} 0"#,
                                  #"registrar_gateway_requests_total{endpoint="/accounts",status="200"} 0"#,
                                  #"registrar_gateway_request_duration_seconds_count{endpoint="/me"} 0"#,
                                  #"registrar_gateway_rate_limited_total{limit="address"} 0"#,
                                  #"registrar_gateway_rate_limited_total{limit="sign_ins_per_email"} 0"#] {
                #expect(exposition.contains(line), "the fresh gateway serves \(line)")
            }
            return exposition
        }
        let topics = inputs[worker] ?? []
        var expected = common + ["registrar_producer_queue_messages{worker=\"\(worker)\"} 0",
                                 "registrar_store_errors_total{worker=\"\(worker)\",kind=\"transient\"} 0",
                                 "registrar_retries_total{worker=\"\(worker)\",step=\"periodic\"} 0"]
        for topic in topics {
            expected.append("registrar_dead_letters_total{worker=\"\(worker)\",topic=\"\(topic)\",reason=\"not_json\"} 0")
            expected.append("registrar_message_handling_duration_seconds_count{worker=\"\(worker)\",topic=\"\(topic)\"} 0")
            expected.append("registrar_dead_letter_topic_messages{worker=\"\(worker)\",topic=\"\(topic).dlq\"} 0")
            for partition in 0..<6 { expected.append("registrar_consumer_lag_messages{worker=\"\(worker)\",topic=\"\(topic)\",partition=\"\(partition)\"} 0") }
        }
        switch worker {
        case "account-worker":
            expected += [#"registrar_outcomes_total{worker="account-worker",type="RegistrationFailed",reason="email_taken"} 0"#,
                         #"registrar_outcomes_total{worker="account-worker",type="TokenIssued",reason="none"} 0"#,
                         #"registrar_lockouts_total{kind="password"} 0"#, #"registrar_saga_oldest_age_seconds{kind="registration"} 0"#,
                         #"registrar_saga_oldest_age_seconds{kind="email_change"} 0"#, #"registrar_mail_sends_total{result="transient"} 0"#,
                         #"registrar_saga_oldest_age_seconds{kind="deletion"} 0"#,
                         #"registrar_argon2id_duration_seconds_count{operation="verify"} 0"#,
                         #"registrar_messages_total{worker="account-worker",topic="auth.requests",type="TokenRequested",result="handled"} 0"#]
        case "code-dispatch-worker":
            expected += [#"registrar_outcomes_total{worker="code-dispatch-worker",type="CodeRefused",reason="code_rate_limited"} 0"#,
                         #"registrar_mail_sends_total{result="sent"} 0"#]
        default: break
        }
        // The lag of a partition comes once the worker has fetched it, the dead-letter depth once it has read it.
        let deadline = ContinuousClock.now + .seconds(30)
        var exposition = ""
        repeat {
            exposition = try await get(port, "/metrics").body
            if expected.allSatisfy(exposition.contains) { break }
            try await Task.sleep(for: .milliseconds(500))
        } while ContinuousClock.now < deadline
        for line in expected {
            #expect(exposition.contains(line.hasSuffix(" ") ? "\n" + line : line + "\n"), "the fresh \(worker) serves \(line)")
        }
        return exposition
    }

    /// Every query of the shipped Grafana dashboard, by panel title, for the job the tests' Prometheus scrapes.
    static func dashboardQueries() throws -> [(String, String)] {
        let data = try Data(contentsOf: URL(filePath: Binaries.packageRoot + "/deploy/grafana/registrar-dashboard.json"))
        let dashboard = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let panels = try #require(dashboard["panels"] as? [[String: Any]])
        let queries = panels.flatMap { panel in
            (panel["targets"] as? [[String: Any]] ?? []).compactMap { target in
                (target["expr"] as? String).map { (panel["title"] as? String ?? "?", $0.replacingOccurrences(of: "$job", with: "registrar")) }
            }
        }
        #expect(queries.count >= 20)
        return queries
    }

    /// The fault is a SQLite writer holding the embedded accounts database, so this runs in the embedded
    /// pass (the production pass's stores are PostgreSQL's).
    @Test(.enabled(if: !StoreLocation.productionRequested))
    func readinessSaysWhichDependencyIsFailingUntilItRecovers() async throws {
        try await LiveSystem.with(extraArguments: Self.listen) { system in
            let port = try await Self.ports(of: system)["account-worker"]!
            try await Self.waitUntilReady(port)
            // Its register code first: the code dispatch worker keeps codes in the accounts database too.
            let request = try await system.request(email: "locked-out@example.com")
            // The accounts database is held by another writer for 8 s while a registration arrives.
            let lock = try ChildProcess("/bin/sh", ["-c", "(echo 'BEGIN EXCLUSIVE;'; sleep 8; echo 'COMMIT;') | sqlite3 '\(system.directory)/accounts.sqlite'"])
            try await Task.sleep(for: .milliseconds(500))
            try await system.publish([request])
            let deadline = ContinuousClock.now + .seconds(8)
            var notReady: String?
            while notReady == nil, ContinuousClock.now < deadline {
                let (status, body) = try await Self.get(port, "/readyz")
                if status == 503 { notReady = body }
                try await Task.sleep(for: .milliseconds(200))
            }
            // The registration's partition, or the account worker's periodic sweep or outbox relay when it met the lock
            // first (the registration then waits behind it for the database's one connection).
            let waits = ["waiting for a dependency on registration.requests/", "waiting for a dependency on the periodic work: ",
                         "waiting for a dependency on the outbox relay: "]
            #expect(waits.contains { notReady?.contains($0) == true }, "\(notReady ?? "never 503")")
            #expect(notReady?.contains("locked") == true || notReady?.contains("busy") == true, "\(notReady ?? "")")
            #expect(try await Self.get(port, "/healthz").status == 200, "alive while it waits")
            _ = await lock.waitForExit()
            try await Self.waitUntilReady(port)
            let outcomes = try await system.waitForOutcomes([request.registrationId])
            guard case .registrationCompleted = outcomes[request.registrationId]?.first else {
                Issue.record("not completed after the lock: \(outcomes[request.registrationId] ?? [])"); return
            }
        }
    }

    /// The value of the series `series` (name and labels as exposed) in `exposition`.
    static func value(of series: String, in exposition: String) -> Double? {
        exposition.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Double($0.dropFirst(series.count + 1)) }
    }

    /// Each worker's endpoint port, from the line it logs when it starts serving.
    static func ports(of system: LiveSystem) async throws -> [String: Int] {
        var ports: [String: Int] = [:]
        for worker in workers {
            try await system.waitForLog(of: worker, containing: "operations endpoint listening")
            ports[worker] = try await port(loggedIn: "\(system.logs)/\(worker).log")
        }
        return ports
    }

    /// The endpoint port a process logged in `log` when it started serving (waiting for the line up to 30 s).
    static func port(loggedIn log: String) async throws -> Int {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.contains("operations endpoint listening") }) {
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                return try #require(object["port"] as? Int)
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw HarnessError("no operations endpoint logged in \(log)")
    }

    static func waitUntilReady(_ port: Int, timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        while try await get(port, "/readyz").status != 200 {
            guard ContinuousClock.now < deadline else { throw HarnessError("port \(port) not ready within \(timeout)") }
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    /// GET with curl: the status and the body.
    static func get(_ port: Int, _ path: String) async throws -> (status: Int, body: String) {
        let curl = try ChildProcess("/usr/bin/curl", ["-s", "-w", "\n%{http_code}", "http://127.0.0.1:\(port)\(path)"], errors: .discarded)
        var lines: [String] = []
        while let line = await curl.nextLine() { lines.append(line) }
        _ = await curl.waitForExit()
        let status = Int(lines.popLast() ?? "") ?? 0
        return (status, lines.joined(separator: "\n"))
    }

    /// What `promtool check metrics` finds wrong with `exposition` (empty when nothing).
    static func promtool(_ exposition: String) async throws -> [String] {
        let promtool = try ChildProcess("/usr/bin/promtool", ["check", "metrics"], input: .pipe, errors: .standardOutput)
        promtool.write(Array((exposition + "\n").utf8))
        promtool.closeInput()
        var lines: [String] = []
        while let line = await promtool.nextLine() { lines.append(line) }
        return await promtool.waitForExit() == 0 ? lines : ["status != 0"] + lines
    }
}
