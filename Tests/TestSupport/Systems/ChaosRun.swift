import Foundation
import Installation
import Support
import Testing

/// One `registrar-dev chaos` run in a fresh data directory: its exit status and report, with the checks
/// every chaos test makes (exit 0, every topic registration's outcome, the updates' and deletions' checks made, no FAIL
/// line). The data directory is
/// removed when the run passed (unless `REGISTRAR_CHAOS_KEEP_DATA` is set), kept for a look otherwise; the run's log goes
/// to `<tmp>/<log>`.
struct ChaosRun {
    let status: Int32
    let report: [String]
    var text: String { report.joined(separator: "\n") }

    /// The `faults: …` line of the report.
    var faultCounts: String? { report.first { $0.hasPrefix("faults: ") } }

    @discardableResult
    static func run(_ arguments: [String], registrations: String, environment: [String: String]? = nil, log: String,
                    directory: String = FileManager.default.temporaryDirectory.appendingPathComponent("registrar-chaos-\(UUID().uuidString.prefix(8))").path)
        async throws -> ChaosRun {
        let keep = ProcessInfo.processInfo.environment["REGISTRAR_CHAOS_KEEP_DATA"] != nil
        let chaos = try ChildProcess(Binaries.path("registrar-dev"),
                                     ["chaos", "--registrations", registrations, "--data-dir", directory] + arguments + (keep ? ["--keep-data"] : []),
                                     environment: environment, errors: .file(FileManager.default.temporaryDirectory.path + "/" + log))
        var report: [String] = []
        while let line = await chaos.nextLine() { report.append(line) }
        let run = ChaosRun(status: await chaos.waitForExit(), report: report)
        print(run.text)
        #expect(run.status == 0, "\(run.text)")
        #expect(report.contains { $0.hasPrefix("PASS every request has an outcome (") }, "\(run.text)")
        for check in ["every update and deletion got exactly one answer", "every deletion left nothing in any store",
                      "every profile update ended complete"] {
            #expect(report.contains { $0.hasPrefix("PASS " + check) }, "\(check): \(run.text)")
        }
        #expect(report.contains { $0.contains("updates and deletions: ") && !$0.contains(": 0 updates, 0 deletions") }, "\(run.text)")
        #expect(!report.contains { $0.hasPrefix("FAIL") })
        if run.status == 0, !keep {
            try? FileManager.default.removeItem(atPath: directory)
        }
        return run
    }

    /// The clock steps of a `--long-faults` run, by their names (none without libfaketime, which `scripts/setup` installs).
    static var clockSteps: [String] {
        SteppedClock.isAvailable ? ["+150", "-150", "+600", "-600"].map { "account worker's clock stepped \($0) s" } : []
    }

    /// Expects each of `names` to have been injected at least once.
    func expectInjected(_ names: [String]) throws {
        let counts = try #require(faultCounts, "\(text)")
        for name in names {
            #expect(counts.contains(try Regex("[1-9][0-9]* × \(NSRegularExpression.escapedPattern(for: name))")), "\(name) was injected: \(counts)")
        }
    }
}
