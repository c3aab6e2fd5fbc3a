import Foundation

/// The machine's load averages over 1, 5 and 15 minutes (`/proc/loadavg`), printed beside benchmark figures.
public struct LoadAverage: Sendable, CustomStringConvertible {
    public var values: [Double]

    public init(values: [Double]) { self.values = values }

    /// The load averages now (empty where `/proc/loadavg` cannot be read).
    public static var now: LoadAverage {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return LoadAverage(values: text.split(separator: " ").prefix(3).compactMap { Double($0) })
    }

    public var description: String {
        values.isEmpty ? "load average unknown" : "load average " + values.map { String(format: "%.2f", $0) }.joined(separator: " ")
    }
}
