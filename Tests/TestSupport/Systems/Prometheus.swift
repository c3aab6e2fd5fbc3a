import Foundation
import Support
import Testing

/// A real Prometheus server (Debian `prometheus`) scraping `targets` every second as job `registrar`, in a directory
/// of its own.
struct Prometheus {
    let port: Int

    /// Runs `body` with a server scraping `targets` (ports on 127.0.0.1) and evaluating `ruleFiles`, and stops it afterwards.
    static func with(targets: [Int], ruleFiles: [String] = [], _ body: (Prometheus) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("prometheus-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let list = targets.map { "'127.0.0.1:\($0)'" }.joined(separator: ", ")
        try """
            global: {scrape_interval: 1s, evaluation_interval: 1s}
            rule_files: [\(ruleFiles.map { "'\($0)'" }.joined(separator: ", "))]
            scrape_configs:
              - job_name: registrar
                static_configs: [{targets: [\(list)]}]
            """.write(toFile: directory + "/prometheus.yml", atomically: true, encoding: .utf8)
        let port = try await freePort()
        let server = try ChildProcess("/usr/bin/prometheus", [
            "--config.file=\(directory)/prometheus.yml", "--storage.tsdb.path=\(directory)/data",
            "--web.listen-address=127.0.0.1:\(port)",
        ], output: .file(directory + "/prometheus.log"), errors: .standardOutput)
        do {
            try await body(Prometheus(port: port))
        } catch {
            _ = await server.stop()
            throw error
        }
        _ = await server.stop()
    }

    /// Waits until the instant query `query` answers the single value `expected`; fails after `timeout`.
    func waitFor(_ query: String, toBe expected: String, timeout: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now + timeout
        var last = "no answer"
        while ContinuousClock.now < deadline {
            if let value = try await value(of: query) {
                if value == expected { return }
                last = value
            }
            try await Task.sleep(for: .milliseconds(500))
        }
        throw HarnessError("Prometheus answered \(query) with \(last), not \(expected), within \(timeout)")
    }

    /// Waits until the instant query `query` answers at least one series (`what` it is, for the failure); fails after `timeout`.
    func waitForData(_ query: String, _ what: String, timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let series = try await series(of: query), !series.isEmpty { return }
            try await Task.sleep(for: .milliseconds(500))
        }
        Issue.record("Prometheus answered no series for \(what) within \(timeout): \(query)")
    }

    /// The single value of an instant query, or nil while there is none.
    func value(of query: String) async throws -> String? {
        guard let result = try await series(of: query), result.count == 1, let value = result[0]["value"] as? [Any],
              value.count == 2 else { return nil }
        return value[1] as? String
    }

    /// The series an instant query answers (empty when it answers none), or nil when it fails.
    func series(of query: String) async throws -> [[String: Any]]? {
        let object = try await get("/api/v1/query", ["query=\(query)"])
        return (object?["data"] as? [String: Any])?["result"] as? [[String: Any]]
    }

    /// The rule groups Prometheus loaded, with each rule's health and last error.
    func rules() async throws -> [[String: Any]] {
        let groups = ((try await get("/api/v1/rules", []))?["data"] as? [String: Any])?["groups"] as? [[String: Any]] ?? []
        return groups.flatMap { $0["rules"] as? [[String: Any]] ?? [] }
    }

    /// The JSON object of a GET of `path` with the URL-encoded `parameters`.
    private func get(_ path: String, _ parameters: [String]) async throws -> [String: Any]? {
        let curl = try ChildProcess("/usr/bin/curl", ["-s", "--get"] + parameters.flatMap { ["--data-urlencode", $0] }
                                    + ["http://127.0.0.1:\(port)\(path)"], errors: .discarded)
        var text = ""
        while let line = await curl.nextLine() { text += line }
        _ = await curl.waitForExit()
        return try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
    }

    /// A port free now (the kernel's choice for a socket bound to port 0).
    private static func freePort() async throws -> Int {
        let python = try ChildProcess("/usr/bin/python3", ["-c", "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"])
        guard let line = await python.nextLine(), let port = Int(line) else { throw HarnessError("no free port") }
        _ = await python.waitForExit()
        return port
    }
}
