import Foundation

/// Waits until each worker process has been assigned partitions, as its log says (`partitions assigned`),
/// so that a benchmark does not time the group joins.
enum GroupJoins {
    static func wait(for processes: [String], logs: String, timeout: Duration = .seconds(120)) async throws {
        let start = ContinuousClock.now
        var waiting = Set(processes)
        while !waiting.isEmpty {
            waiting = waiting.filter { name in
                let log = (try? String(contentsOfFile: "\(logs)/\(name).log", encoding: .utf8)) ?? ""
                return !log.contains("\"partitions assigned\"")
            }
            guard ContinuousClock.now - start < timeout else {
                throw BenchmarkError("no partitions assigned within \(timeout) to: \(waiting.sorted().joined(separator: ", "))")
            }
            if !waiting.isEmpty { try await Task.sleep(for: .milliseconds(250)) }
        }
    }
}

/// A benchmark that could not run.
public struct BenchmarkError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
