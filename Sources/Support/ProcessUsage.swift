import Foundation

/// What a running process has used so far, read from `/proc/<pid>/stat`, `/proc/<pid>/status` and `/proc/<pid>/fd` (Linux).
public struct ProcessUsage: Sendable {
    /// User plus system CPU time (utime + stime).
    public var cpuTime: Duration
    /// Resident memory now (`VmRSS`), in bytes.
    public var residentBytes: Int
    /// The most resident memory it has had (`VmHWM`), in bytes.
    public var peakResidentBytes: Int
    /// Its virtual memory size, in bytes.
    public var virtualBytes: Int
    /// When it started.
    public var startTime: Date
    /// The file descriptors it holds open; nil when they cannot be listed (another user's process).
    public var openDescriptors: Int?

    /// The usage of process `pid`; nil when it is gone (or this is no Linux).
    public init?(pid: Int32) {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return nil }
        // The fields after the command name, from the third (state): utime is the 14th field, starttime the 22nd, vsize the 23rd.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 20, let user = Int(fields[11]), let system = Int(fields[12]), let started = Int(fields[19]),
              let virtual = Int(fields[20]) else { return nil }
        let ticks = sysconf(Int32(_SC_CLK_TCK))
        cpuTime = .milliseconds((user + system) * 1000 / ticks)
        virtualBytes = virtual
        startTime = Date(timeIntervalSince1970: Self.bootTime + Double(started) / Double(ticks))
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        func kibibytes(_ field: String) -> Int {
            let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") }
            return (line?.split(whereSeparator: \.isWhitespace).dropFirst().first.flatMap { Int($0) } ?? 0) * 1024
        }
        residentBytes = kibibytes("VmRSS")
        peakResidentBytes = kibibytes("VmHWM")
        openDescriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd"))?.count
    }

    /// The most file descriptors this process may open (its soft `RLIMIT_NOFILE`).
    public static var descriptorLimit: Int {
        var limit = rlimit()
        return getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 ? Int(limit.rlim_cur) : 0
    }

    /// When the machine booted, in seconds since 1970 (`btime` of `/proc/stat`).
    private static let bootTime: Double = {
        let stat = (try? String(contentsOfFile: "/proc/stat", encoding: .utf8)) ?? ""
        let line = stat.split(separator: "\n").first { $0.hasPrefix("btime ") }
        return line.flatMap { Double($0.dropFirst("btime ".count)) } ?? 0
    }()
}
