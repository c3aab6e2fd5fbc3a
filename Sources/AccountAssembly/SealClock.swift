import Support

/// A seal refused for its time alone: logged as a clock problem with the measured skew, and counted in
/// `registrar_seal_clock_refusals_total` by direction (the worker's clock ahead of the sealed time, or behind it).
enum SealClock {
    private static let refusals = MetricsRegistry.shared.counter(
        "registrar_seal_clock_refusals_total",
        "Requests refused because their sealed time is more than --seal-max-age from this worker's clock: a clock out of "
            + "step (the sealer's or this worker's) or a replayed message, by direction (worker_ahead, worker_behind)",
        labels: ["direction"])

    /// Reports a refusal with `skew` seconds (this worker's time less the sealed time), against `maximumAge`.
    static func reporter(maximumAge: Int, logger: Logger) -> @Sendable (Int) -> Void {
        for direction in ["worker_ahead", "worker_behind"] { refusals.declare(direction) }
        return { skew in
            refusals.increment(skew > 0 ? "worker_ahead" : "worker_behind")
            logger.warning("a sealed secret's time is \(abs(skew)) s \(skew > 0 ? "behind" : "ahead of") this worker's clock, beyond "
                           + "--seal-max-age (\(maximumAge) s): refused as a wrong credential. If many requests say so, a clock is "
                           + "out of step: compare the sealers' (gateway, CLI, apps) with this worker's", ["seal_clock_skew_seconds": skew])
        }
    }
}
