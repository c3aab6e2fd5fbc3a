import Domain
import Foundation
import Support
@testable import TestSupport
import Testing

/// Every worker serves `/metrics`, `/healthz` and `/readyz` on `--metrics-listen`; a real Prometheus
/// (Debian `prometheus`) scrapes them and counts the registrations the test made; `promtool` accepts
/// each exposition; `/readyz` says why while a dependency fails.
@Suite(.tags(.live, .timed), .serialized) struct OperationsEndpointTests {
    static let workers = ["account-worker", "image-worker", "profile-worker", "code-dispatch-worker"]
    static let listen = Dictionary(uniqueKeysWithValues: workers.map { ($0, ["--metrics-listen", "127.0.0.1:0"]) })

    @Test func prometheusScrapesEveryWorkerAndCountsTheRegistrations() async throws {
        try await LiveSystem.with(extraArguments: Self.listen) { system in
            let ports = try await Self.ports(of: system)
            for port in ports.values { try await Self.waitUntilReady(port) }
            let hashes = #"registrar_argon2id_duration_seconds_count{operation="hash"}"#
            let hashesBefore = Self.value(of: hashes, in: try await Self.get(ports["account-worker"]!, "/metrics").body) ?? 0
            let requests = (0..<3).map { system.request(email: "scraped\($0)@example.com") }
            for request in requests {
                guard case .registrationCompleted = try await system.send(.registrationRequested(request)) else {
                    Issue.record("registration \(request.email) did not complete"); return
                }
            }
            for (worker, port) in ports {
                let (status, body) = try await Self.get(port, "/metrics")
                #expect(status == 200)
                #expect(try await Self.promtool(body).isEmpty, "promtool on \(worker)")
                #expect(try await Self.get(port, "/healthz").status == 200)
            }
            let (_, accountMetrics) = try await Self.get(ports["account-worker"]!, "/metrics")
            #expect(Self.value(of: hashes, in: accountMetrics) == hashesBefore + 3, "one argon2id hash per registration")
            #expect(accountMetrics.contains("registrar_consumer_lag_messages{worker=\"account-worker\",topic=\"registration.requests\""))

            try await Prometheus.with(targets: ports.values.sorted()) { prometheus in
                try await prometheus.waitFor("count(up == 1)", toBe: "4")
                try await prometheus.waitFor("sum(registrar_outcomes_total{type=\"RegistrationCompleted\"})", toBe: "3")
                try await prometheus.waitFor(
                    "sum(registrar_messages_total{worker=\"profile-worker\",type=\"WriteProfile\",result=\"handled\"})", toBe: "3")
            }
        }
    }

    /// The fault is a SQLite writer holding the embedded accounts database, so this runs in the embedded
    /// pass (the production pass's stores are PostgreSQL's).
    @Test(.enabled(if: !StoreLocation.productionRequested))
    func readinessSaysWhichDependencyIsFailingUntilItRecovers() async throws {
        try await LiveSystem.with(extraArguments: Self.listen) { system in
            let port = try await Self.ports(of: system)["account-worker"]!
            try await Self.waitUntilReady(port)
            // The accounts database is held by another writer for 8 s while a registration arrives.
            let lock = try ChildProcess("/bin/sh", ["-c", "(echo 'BEGIN EXCLUSIVE;'; sleep 8; echo 'COMMIT;') | sqlite3 '\(system.directory)/accounts.sqlite'"])
            try await Task.sleep(for: .milliseconds(500))
            let request = system.request(email: "locked-out@example.com")
            try await system.publish([request])
            let deadline = ContinuousClock.now + .seconds(8)
            var notReady: String?
            while notReady == nil, ContinuousClock.now < deadline {
                let (status, body) = try await Self.get(port, "/readyz")
                if status == 503 { notReady = body }
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(notReady?.contains("waiting for a dependency on registration.requests/") == true, "\(notReady ?? "never 503")")
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
            let log = try String(contentsOfFile: "\(system.logs)/\(worker).log", encoding: .utf8)
            let line = try #require(log.split(separator: "\n").first { $0.contains("operations endpoint listening") })
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            ports[worker] = try #require(object["port"] as? Int)
        }
        return ports
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
