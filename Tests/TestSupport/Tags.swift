import Testing

/// The test tiers, declared on every suite (`@Suite(.tags(.unit))`); `scripts/test` and `scripts/test fast` choose
/// by them (`--filter tag:unit`). What each tier may use and when a new test belongs to it: `Tests/README.md`.
extension Tag {
    /// Logic and what this process alone holds (memory, temporary files, a loopback socket of its own): milliseconds.
    @Tag public static var unit: Self
    /// The workers' stacks as the executables build them — routing tables, steps, the embedded stores — driven
    /// directly, one event after the other, without Kafka: the flows in milliseconds.
    @Tag public static var kafkaFree: Self
    /// The gateway's and the console's routes, called in the test process in front of the in-process workers.
    @Tag public static var routes: Self
    /// The workers' real runtimes in the test process, on librdkafka's mock cluster.
    @Tag public static var inProcess: Self
    /// The Kafka layer and the worker runtime against a mock cluster or broker processes, and other Kafka clients.
    @Tag public static var kafka: Self
    /// A production server: PostgreSQL, moto (S3), aiosmtpd (SMTP) or Tansu.
    @Tag public static var production: Self
    /// The real binaries as processes, on a local broker.
    @Tag public static var live: Self
    /// A chaos run: registrations while workers, brokers and stores fail.
    @Tag public static var chaos: Self
    /// Bounds a recovery in wall-clock time (kills, faults, failover): run one test at a time.
    @Tag public static var timed: Self
    /// Holds a dependency down or faulty, or steps a clock, for seconds to minutes (timed): the outages' own chain.
    @Tag public static var outage: Self
    /// Kills workers mid-flow and checks what they recover: run again on the production stores.
    @Tag public static var crash: Self
    /// No store takes part (deploy files, commands pointed at no broker): not run again on the production stores.
    @Tag public static var storeFree: Self
    /// Bounds a time that only a machine to itself keeps (a failover within 15 s on Tansu, whose timers slip under CI's
    /// load of the chains): run after every other chain has ended, with nothing else running but each other.
    @Tag public static var alone: Self
    /// Stops or restarts what other tests would share (a broker process, a database server): run alone, last.
    @Tag public static var serial: Self
}
