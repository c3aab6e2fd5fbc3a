import Foundation

/// What a running process has used so far, read from `/proc/<pid>/stat` and `/proc/<pid>/status` (Linux).
public struct ProcessUsage: Sendable {
    /// User plus system CPU time (utime + stime).
    public var cpuTime: Duration
    /// Resident memory now (`VmRSS`), in bytes.
    public var residentBytes: Int
    /// The most resident memory it has had (`VmHWM`), in bytes.
    public var peakResidentBytes: Int

    /// The usage of process `pid`; nil when it is gone (or this is no Linux).
    public init?(pid: Int32) {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        cpuTime = .milliseconds((user + system) * 1000 / sysconf(Int32(_SC_CLK_TCK)))
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        func kibibytes(_ field: String) -> Int {
            let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") }
            return (line?.split(whereSeparator: \.isWhitespace).dropFirst().first.flatMap { Int($0) } ?? 0) * 1024
        }
        residentBytes = kibibytes("VmRSS")
        peakResidentBytes = kibibytes("VmHWM")
    }
}
