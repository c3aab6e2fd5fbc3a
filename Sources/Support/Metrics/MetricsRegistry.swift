import Synchronization

/// The metrics of one process, exposed in the Prometheus text format (version 0.0.4) at `/metrics`.
///
/// Families are declared once, by name, with their label names; recording takes the label values in the
/// same order. Declaring a name twice returns the first family when kind, help and labels agree, and
/// stops the program otherwise (a programming error, like a route claimed twice).
public final class MetricsRegistry: Sendable {
    /// The registry the process's workers, stores and adapters record into.
    public static let shared = MetricsRegistry()

    private let families = Mutex<[String: MetricFamily]>([:])

    public init() {}

    /// A counter: a total that only goes up (`name` ends in `_total`).
    public func counter(_ name: String, _ help: String, labels: [String] = []) -> Counter {
        Counter(family: family(name, help, .counter, labels))
    }

    /// A gauge: a value that goes up and down.
    public func gauge(_ name: String, _ help: String, labels: [String] = []) -> Gauge {
        Gauge(family: family(name, help, .gauge, labels))
    }

    /// A histogram of observations (`name` in base units, e.g. `_seconds`), counted per upper bound.
    public func histogram(_ name: String, _ help: String, labels: [String] = [],
                          buckets: [Double] = Histogram.latencyBuckets) -> Histogram {
        Histogram(family: family(name, help, .histogram(buckets.sorted()), labels))
    }

    /// Every family, sorted by name, in the Prometheus text format.
    public func exposition() -> String {
        families.withLock { Array($0.values) }.sorted { $0.name < $1.name }.map { $0.exposition() }.joined()
    }

    private func family(_ name: String, _ help: String, _ kind: MetricFamily.Kind, _ labels: [String]) -> MetricFamily {
        families.withLock { families in
            if let existing = families[name] {
                precondition(existing.kind == kind && existing.help == help && existing.labels == labels,
                             "metric \(name) declared twice, differently")
                return existing
            }
            let family = MetricFamily(name: name, help: help, kind: kind, labels: labels)
            families[name] = family
            return family
        }
    }
}

/// A counter family; `increment` takes the label values in the order the family declared its labels.
public struct Counter: Sendable {
    let family: MetricFamily

    public func increment(_ labels: String..., by amount: Double = 1) {
        precondition(amount >= 0, "a counter only goes up")
        family.add(amount, labels)
    }

    /// Exports the series at zero until it is first counted.
    public func declare(_ labels: String...) { family.declare(labels) }

    /// Adds the totals `read` returns (label values → value) at each exposition, e.g. the CPU time the kernel counted.
    public func collect(from source: String, _ read: @escaping @Sendable () -> [[String]: Double]) {
        family.setSource(source, read)
    }
}

/// A gauge family.
public struct Gauge: Sendable {
    let family: MetricFamily

    public func set(_ value: Double, _ labels: String...) { family.set(value, labels) }

    /// Adds `amount` (negative to subtract), e.g. one for a request begun and minus one for it answered.
    public func add(_ amount: Double, _ labels: String...) { family.add(amount, labels) }

    /// Adds the series `read` returns (label values → value) at each exposition, until `stopCollecting(from:)`
    /// with the same `source` (e.g. a consumer's lag per partition, read when Prometheus scrapes).
    public func collect(from source: String, _ read: @escaping @Sendable () -> [[String]: Double]) {
        family.setSource(source, read)
    }

    public func stopCollecting(from source: String) { family.setSource(source, nil) }
}

/// A histogram family.
public struct Histogram: Sendable {
    /// From 1 ms to 30 s, for handling and request durations.
    public static let latencyBuckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

    let family: MetricFamily

    public func observe(_ value: Double, _ labels: String...) { family.observe(value, labels) }

    /// Exports the series with no observations until its first.
    public func declare(_ labels: String...) { family.declare(labels) }

    /// Observes how long `work` took, in seconds, whether it returns or throws.
    public func time<T>(_ labels: String..., work: () throws -> T) rethrows -> T {
        let start = ContinuousClock.now
        defer { family.observe((ContinuousClock.now - start).seconds, labels) }
        return try work()
    }
}

extension Duration {
    /// The duration in seconds, as Prometheus wants it.
    public var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
