import Foundation
import Support

/// One `wrk` run (Debian `wrk`) against the gateway: POSTs built by a Lua script, one connection per thread,
/// and the figures its `--latency` report gives.
struct WrkRun {
    var requestsPerSecond: Double
    var p50: Double
    var p99: Double
    /// Non-2xx/3xx answers and socket errors, as wrk counts them.
    var failures: Int

    /// Runs `script` (Lua, given `args` after `--`) against `url` for `seconds` on `connections` connections.
    static func run(_ url: String, script: String, args: [String] = [], connections: Int, seconds: Int, in directory: String) async throws -> WrkRun {
        let path = directory + "/bench-\(UUID().uuidString.prefix(8)).lua"
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        let process = try ChildProcess("/usr/bin/wrk", ["-t", "\(connections)", "-c", "\(connections)", "-d", "\(seconds)s", "--latency",
                                                        "-s", path, url, "--"] + args, errors: .inherited)
        var lines: [String] = []
        while let line = await process.nextLine() { lines.append(line) }
        guard await process.waitForExit() == 0 else { throw InstallationFailure("wrk failed:\n" + lines.joined(separator: "\n")) }
        func figure(_ prefix: String) -> String? {
            lines.first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(prefix) }?
                .trimmingCharacters(in: .whitespaces).dropFirst(prefix.count).trimmingCharacters(in: .whitespaces)
        }
        let failures = (figure("Non-2xx or 3xx responses:").flatMap { Int($0) } ?? 0)
            + (figure("Socket errors:").map { $0.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }.reduce(0, +) } ?? 0)
        guard let rate = figure("Requests/sec:").flatMap(Double.init), let p50 = figure("50%").flatMap(milliseconds),
              let p99 = figure("99%").flatMap(milliseconds) else {
            throw InstallationFailure("unreadable wrk report:\n" + lines.joined(separator: "\n"))
        }
        return WrkRun(requestsPerSecond: rate, p50: p50, p99: p99, failures: failures)
    }

    /// wrk's `1.23ms`, `850.00us`, `1.02s` in milliseconds.
    private static func milliseconds(_ text: String) -> Double? {
        for (unit, scale) in [("us", 0.001), ("ms", 1.0), ("s", 1000.0)] where text.hasSuffix(unit) {
            return Double(text.dropLast(unit.count)).map { $0 * scale }
        }
        return nil
    }
}

/// A benchmark that could not run.
struct InstallationFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
