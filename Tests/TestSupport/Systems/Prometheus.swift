import Foundation
import Support

/// A real Prometheus server (Debian `prometheus`) scraping `targets` every second, in a directory of its own.
struct Prometheus {
    let port: Int

    /// Runs `body` with a server scraping `targets` (ports on 127.0.0.1), and stops it afterwards.
    static func with(targets: [Int], _ body: (Prometheus) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("prometheus-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let list = targets.map { "'127.0.0.1:\($0)'" }.joined(separator: ", ")
        try """
            global: {scrape_interval: 1s, evaluation_interval: 1s}
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

    /// The single value of an instant query, or nil while there is none.
    func value(of query: String) async throws -> String? {
        let curl = try ChildProcess("/usr/bin/curl", ["-s", "--get", "--data-urlencode", "query=\(query)",
                                                      "http://127.0.0.1:\(port)/api/v1/query"], errors: .discarded)
        var text = ""
        while let line = await curl.nextLine() { text += line }
        _ = await curl.waitForExit()
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
              let data = object["data"] as? [String: Any], let result = data["result"] as? [[String: Any]],
              result.count == 1, let value = result[0]["value"] as? [Any], value.count == 2 else { return nil }
        return value[1] as? String
    }

    /// A port free now (the kernel's choice for a socket bound to port 0).
    private static func freePort() async throws -> Int {
        let python = try ChildProcess("/usr/bin/python3", ["-c", "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"])
        guard let line = await python.nextLine(), let port = Int(line) else { throw HarnessError("no free port") }
        _ = await python.waitForExit()
        return port
    }
}
