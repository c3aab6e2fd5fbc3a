import Support

/// Settings for a producer or consumer: typed fields for what every worker sets, and
/// `properties` for anything else librdkafka accepts (TLS, SASL, tuning).
///
/// Only the fields that apply to the client's role are passed to librdkafka, so producer
/// settings on a consumer (or the reverse) are harmless.
public struct KafkaConfiguration: Sendable {
    /// Acknowledgements the leader waits for before answering a produce request.
    public enum Acks: String, Sendable {
        case all = "all", leader = "1", none = "0"
    }

    /// Compression codec for produced batches.
    public enum Compression: String, Sendable {
        case none, gzip, snappy, lz4, zstd
    }

    /// How a consumer group shares partitions among its members.
    public enum AssignmentStrategy: String, Sendable {
        /// Incremental (COOPERATIVE protocol): only partitions that move are revoked, and members keep
        /// consuming the others during a rebalance.
        case cooperativeSticky = "cooperative-sticky"
        /// EAGER protocol: every member gives up all partitions at each rebalance.
        case range, roundRobin = "roundrobin"
    }

    /// Where a consumer group starts on a partition without a committed offset.
    public enum OffsetReset: String, Sendable {
        case earliest, latest, error
    }

    /// `host:port[,host:port…]` of one or more brokers.
    public var bootstrapServers: String
    public var clientID: String
    /// The consumer group; required by `KafkaConsumer(configuration:subscribingTo:)`.
    public var groupID: String?
    /// This member's stable name in its group (static membership, KIP-345): a member restarted under the same name
    /// takes its partitions back without a rebalance, and one that closes does not leave (its partitions move after
    /// the session timeout, unless it comes back first). Unique per member.
    public var groupInstanceID: String?
    public var acks: Acks = .all
    /// Exactly-once, in-order writes per partition; requires `acks == .all`.
    public var enableIdempotence = true
    /// How long the producer waits to fill a batch.
    public var linger: Duration = .milliseconds(5)
    public var compression: Compression = .none
    /// How long the group waits for a silent consumer before giving its partitions away.
    public var sessionTimeout: Duration = .seconds(45)
    /// How often a group member tells the coordinator it is alive; well under `sessionTimeout`.
    public var heartbeatInterval: Duration = .seconds(3)
    /// How long a produced message may take, retries included, before `send` fails.
    public var deliveryTimeout: Duration = .seconds(60)
    /// Default timeout of network requests.
    public var socketTimeout: Duration = .seconds(60)
    /// How long the broker may hold a fetch request waiting for data.
    public var fetchWaitMax: Duration = Self.defaultFetchWait
    /// librdkafka's mock cluster holds every empty fetch for the whole wait and hands over what arrived meanwhile only
    /// to the next fetch, so a hop waits half of it on average: 50 ms adds about 150 ms to a local registration's six
    /// hops, while an idle consumer asks each broker 20 times a second, not 100 (at 10 ms, the fetches of the clients
    /// of a test run's local brokers took about 45 % of its CPU).
    public static let defaultFetchWait = Duration.milliseconds(50)
    public var autoOffsetReset: OffsetReset = .earliest
    /// All members of a group must use the same protocol (cooperative, or range/round-robin).
    public var assignmentStrategy: AssignmentStrategy = .cooperativeSticky
    /// Any librdkafka property (see its CONFIGURATION.md); applied last, so it overrides the fields above.
    public var properties: [String: String] = [:]
    /// Called with non-fatal errors that librdkafka recovers from by itself (broker down, transport
    /// failures, failed asynchronous commits). Called on a librdkafka or library thread: keep it short.
    public var errorHandler: (@Sendable (KafkaError) -> Void)?
    /// Called on the consumer's poll thread when a group consumer's partitions change; keep it short.
    public var rebalanceHandler: (@Sendable (RebalanceEvent) -> Void)?
    /// Called with librdkafka's log lines (default: librdkafka prints them to stderr).
    public var logHandler: (@Sendable (KafkaLogEntry) -> Void)?

    public init(bootstrapServers: String, clientID: String) {
        self.bootstrapServers = bootstrapServers
        self.clientID = clientID
    }
}

/// One log line of librdkafka.
public struct KafkaLogEntry: Sendable {
    /// Syslog level: 0 (emergency) … 7 (debug).
    public var level: Int32
    /// librdkafka's facility, e.g. `FAIL`, `REQTMOUT`.
    public var facility: String
    public var message: String
}

extension KafkaConfiguration {
    enum Role { case producer, consumer, admin }

    /// The librdkafka properties for a client of `role`, in the order they are applied.
    func librdkafkaProperties(for role: Role) -> [(String, String)] {
        var result: [(String, String)] = [
            ("bootstrap.servers", bootstrapServers),
            ("client.id", clientID),
            ("socket.timeout.ms", String(socketTimeout.milliseconds)),
        ]
        switch role {
        case .producer:
            result += [
                ("acks", acks.rawValue),
                ("enable.idempotence", String(enableIdempotence)),
                ("linger.ms", String(linger.milliseconds)),
                ("compression.type", compression.rawValue),
                ("delivery.timeout.ms", String(deliveryTimeout.milliseconds)),
            ]
        case .consumer:
            if let groupID { result.append(("group.id", groupID)) }
            if let groupInstanceID { result.append(("group.instance.id", groupInstanceID)) }
            result += [
                ("session.timeout.ms", String(sessionTimeout.milliseconds)),
                ("heartbeat.interval.ms", String(heartbeatInterval.milliseconds)),
                ("fetch.wait.max.ms", String(fetchWaitMax.milliseconds)),
                ("auto.offset.reset", autoOffsetReset.rawValue),
                ("partition.assignment.strategy", assignmentStrategy.rawValue),
                // Offsets are stored only for processed messages (`commit`), and committed explicitly.
                ("enable.auto.commit", "false"),
                ("enable.auto.offset.store", "false"),
            ]
        case .admin:
            break
        }
        return result + properties.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
