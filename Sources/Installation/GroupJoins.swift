import Foundation

/// Waits until each worker process has been assigned partitions, as its log says (`partitions assigned`):
/// its stores are open and it has joined its group (a benchmark does not time the joins; a fault test does not
/// fault a worker still starting).
public enum GroupJoins {
    public static func wait(for processes: [String], logs: String, timeout: Duration = .seconds(120)) async throws {
        let start = ContinuousClock.now
        var waiting = Set(processes)
        while !waiting.isEmpty {
            waiting = waiting.filter { name in
                let log = (try? String(contentsOfFile: "\(logs)/\(name).log", encoding: .utf8)) ?? ""
                return !log.contains("\"partitions assigned\"")
            }
            guard ContinuousClock.now - start < timeout else {
                throw InstallationError("no partitions assigned within \(timeout) to: \(waiting.sorted().joined(separator: ", "))")
            }
            if !waiting.isEmpty { try await Task.sleep(for: .milliseconds(250)) }
        }
    }
}
