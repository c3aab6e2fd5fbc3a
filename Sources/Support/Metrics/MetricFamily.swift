import Foundation
import Synchronization

/// One metric name with its series (one per combination of label values).
final class MetricFamily: Sendable {
    enum Kind: Equatable, Sendable {
        case counter, gauge
        case histogram([Double])

        var typeName: String {
            switch self {
            case .counter: "counter"
            case .gauge: "gauge"
            case .histogram: "histogram"
            }
        }
    }

    /// A histogram series: observations per bucket (not cumulative), their sum and count.
    struct Distribution: Sendable {
        var buckets: [UInt64]
        var sum = 0.0
        var count: UInt64 = 0
    }

    let name: String
    let help: String
    let kind: Kind
    let labels: [String]
    private let values = Mutex<[[String]: Double]>([:])
    private let distributions = Mutex<[[String]: Distribution]>([:])
    private let sources = Mutex<[String: @Sendable () -> [[String]: Double]]>([:])

    init(name: String, help: String, kind: Kind, labels: [String]) {
        precondition(Self.isValidName(name) && labels.allSatisfy(Self.isValidName), "invalid metric or label name in \(name)")
        self.name = name
        self.help = help
        self.kind = kind
        self.labels = labels
    }

    func add(_ amount: Double, _ labelValues: [String]) {
        check(labelValues)
        values.withLock { $0[labelValues, default: 0] += amount }
    }

    /// Exports the series `labelValues` at zero (a histogram's with no observations) until it is recorded, so
    /// that `increase()` sees its first change and `absent()` sees it at all.
    func declare(_ labelValues: [String]) {
        check(labelValues)
        if case .histogram(let bounds) = kind {
            distributions.withLock { $0[labelValues] = $0[labelValues] ?? Distribution(buckets: Array(repeating: 0, count: bounds.count)) }
        } else {
            values.withLock { $0[labelValues] = $0[labelValues] ?? 0 }
        }
    }

    func set(_ value: Double, _ labelValues: [String]) {
        check(labelValues)
        values.withLock { $0[labelValues] = value }
    }

    func setSource(_ name: String, _ read: (@Sendable () -> [[String]: Double])?) {
        sources.withLock { $0[name] = read }
    }

    /// The recorded series and those the sources read now.
    private func series() -> [[String]: Double] {
        var series = values.withLock { $0 }
        for read in sources.withLock({ Array($0.values) }) {
            for (labelValues, value) in read() {
                check(labelValues)
                series[labelValues] = value
            }
        }
        return series
    }

    func observe(_ value: Double, _ labelValues: [String]) {
        check(labelValues)
        guard case .histogram(let bounds) = kind else { preconditionFailure("\(name) is not a histogram") }
        distributions.withLock { distributions in
            var distribution = distributions[labelValues] ?? Distribution(buckets: Array(repeating: 0, count: bounds.count))
            if let index = bounds.firstIndex(where: { value <= $0 }) { distribution.buckets[index] += 1 }
            distribution.sum += value
            distribution.count += 1
            distributions[labelValues] = distribution
        }
    }

    /// The family in the text format: `# HELP`, `# TYPE`, then one line per series (sorted by labels).
    func exposition() -> String {
        var text = "# HELP \(name) \(Self.escapeHelp(help))\n# TYPE \(name) \(kind.typeName)\n"
        switch kind {
        case .counter, .gauge:
            for (labelValues, value) in series().sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
                text += "\(name)\(labelSet(labelValues)) \(Self.format(value))\n"
            }
        case .histogram(let bounds):
            for (labelValues, distribution) in distributions.withLock({ $0 }).sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
                var cumulative: UInt64 = 0
                for (bound, count) in zip(bounds, distribution.buckets) {
                    cumulative += count
                    text += "\(name)_bucket\(labelSet(labelValues, le: Self.format(bound))) \(cumulative)\n"
                }
                text += "\(name)_bucket\(labelSet(labelValues, le: "+Inf")) \(distribution.count)\n"
                text += "\(name)_sum\(labelSet(labelValues)) \(Self.format(distribution.sum))\n"
                text += "\(name)_count\(labelSet(labelValues)) \(distribution.count)\n"
            }
        }
        return text
    }

    private func check(_ labelValues: [String]) {
        precondition(labelValues.count == labels.count, "\(name) takes labels \(labels), got \(labelValues.count) values")
    }

    private func labelSet(_ labelValues: [String], le: String? = nil) -> String {
        var pairs = zip(labels, labelValues).map { "\($0)=\"\(Self.escapeLabel($1))\"" }
        if let le { pairs.append("le=\"\(le)\"") }
        return pairs.isEmpty ? "" : "{" + pairs.joined(separator: ",") + "}"
    }

    /// `[a-zA-Z_][a-zA-Z0-9_]*`: the names Prometheus takes for metrics and labels alike.
    static func isValidName(_ name: String) -> Bool {
        func isLetter(_ c: Unicode.Scalar) -> Bool { c == "_" || ("a"..."z").contains(c) || ("A"..."Z").contains(c) }
        guard let first = name.unicodeScalars.first, isLetter(first) else { return false }
        return name.unicodeScalars.allSatisfy { isLetter($0) || ("0"..."9").contains($0) }
    }

    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    static func escapeLabel(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    static func escapeHelp(_ help: String) -> String {
        help.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
    }
}
