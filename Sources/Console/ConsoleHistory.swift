import Foundation

/// What the console sampled at each refresh over the last hour: each topic's end (the sum of its partitions' next
/// offsets: its messages per minute are the differences) and each worker group's lag. Kept in memory from the
/// console's start; a sample older than `span` is dropped.
struct ConsoleHistory: Sendable {
    struct Sample: Sendable {
        var time: Date
        var ends: [String: Int64]
        var lags: [String: Int64]
    }

    private(set) var samples: [Sample] = []
    let span: TimeInterval

    init(span: Duration = .seconds(3600)) {
        self.span = span.timeInterval
    }

    mutating func record(_ sample: Sample) {
        samples.append(sample)
        samples.removeAll { sample.time.timeIntervalSince($0.time) > span }
    }

    /// Each topic's messages per minute, minute by minute: how far its end moved between the samples of that minute.
    func throughput() -> [String: [Date: Double]] {
        var rates: [String: [Date: Double]] = [:]
        for (previous, sample) in zip(samples, samples.dropFirst()) {
            let seconds = sample.time.timeIntervalSince(previous.time)
            guard seconds > 0 else { continue }
            for (topic, end) in sample.ends {
                let delta = Double(max(0, end - (previous.ends[topic] ?? end)))
                rates[topic, default: [:]][Self.minute(of: sample.time), default: 0] += delta
            }
        }
        return rates
    }

    /// Each group's greatest lag in each minute.
    func lags() -> [String: [Date: Double]] {
        var lags: [String: [Date: Double]] = [:]
        for sample in samples {
            for (group, lag) in sample.lags {
                let minute = Self.minute(of: sample.time)
                lags[group, default: [:]][minute] = max(lags[group]?[minute] ?? 0, Double(lag))
            }
        }
        return lags
    }

    /// The start of the minute `time` is in.
    static func minute(of time: Date) -> Date {
        Date(timeIntervalSince1970: (time.timeIntervalSince1970 / 60).rounded(.down) * 60)
    }
}
