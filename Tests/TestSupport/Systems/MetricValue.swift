import Support

/// The value of one series in this process's metrics (`MetricsRegistry.shared`, which the in-process workers and
/// gateways record into), as Prometheus would scrape it; 0 while it is not exported.
func metricValue(_ series: String) -> Double {
    MetricsRegistry.shared.exposition().split(separator: "\n").first { $0.hasPrefix(series + " ") }
        .flatMap { Double($0.dropFirst(series.count + 1)) } ?? 0
}
