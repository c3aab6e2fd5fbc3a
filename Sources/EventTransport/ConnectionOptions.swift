import Foundation
import Kafka
import Support

/// The options every Registrar binary shares: where the broker and the data are.
///
/// The broker address comes from `--bootstrap`, `KAFKA_BOOTSTRAP_SERVERS`, or else the file
/// `<data-dir>/broker.bootstrap` that `registrar-dev broker --data-dir` writes. Any librdkafka property
/// (TLS, SASL, tuning) passes through `--kafka-property name=value` (one per option, commas kept) or
/// `KAFKA_PROPERTIES` (comma-separated `name=value` pairs); secrets (`sasl.password`) belong in
/// `--kafka-properties-file`, one `name=value` a line, which `--kafka-property` overrides.
public struct ConnectionOptions: Sendable {
    public var bootstrapServers: String
    /// The local broker's address file, when the address came from it (no `--bootstrap`, no environment).
    public var bootstrapFile: String?
    public var dataDirectory: String
    public var kafkaProperties: [String: String]
    /// For a command (rather than a worker or a server): where librdkafka's lines go unless `--verbose`, and what
    /// says in one line why no broker could be reached.
    public var trouble: BrokerTrouble?
    /// `--verbose`: a command logs librdkafka's lines too.
    public var isVerbose = false

    /// The options' specs, to add to a command's own.
    public static let specs: [CommandSpec.Option] = [
        .value("bootstrap", "Kafka bootstrap servers, host:port[,host:port…]", environment: "KAFKA_BOOTSTRAP_SERVERS"),
        .value("data-dir", "Directory of the embedded stores (SQLite, files, keys)", environment: "REGISTRAR_DATA_DIR", default: "data"),
        .value("kafka-property", "Any librdkafka property as name=value", environment: "KAFKA_PROPERTIES", repeatable: true),
        .value("kafka-properties-file", "File of librdkafka properties, name=value a line (# comments), e.g. SASL credentials",
               environment: "KAFKA_PROPERTIES_FILE"),
    ]

    /// The options of a command that reads or writes topics and ends (not a worker or a server): `specs` and `--verbose`.
    public static let commandSpecs = specs + [BrokerTrouble.verboseOption]

    /// The file a local broker started with `--data-dir` leaves its address in.
    public static func bootstrapFile(in dataDirectory: String) -> String { dataDirectory + "/broker.bootstrap" }

    /// The connection `arguments` give; `quietUnlessVerbose` for a command that says in one line why the broker
    /// could not be reached (its spec takes `BrokerTrouble.verboseOption`).
    public init(_ arguments: ParsedArguments, quietUnlessVerbose: Bool = false) throws(UsageError) {
        dataDirectory = arguments.value("data-dir") ?? "data"
        if let servers = arguments.value("bootstrap") {
            bootstrapServers = servers
        } else if let address = BrokerFollower(file: Self.bootstrapFile(in: dataDirectory)).address() {
            bootstrapServers = address
            bootstrapFile = Self.bootstrapFile(in: dataDirectory)
        } else {
            throw .invalid("no broker: give --bootstrap, set KAFKA_BOOTSTRAP_SERVERS, or start `registrar-dev broker --data-dir \(dataDirectory)`", "")
        }
        let fromFile = try arguments.value("kafka-properties-file").map(Self.properties(inFile:)) ?? [:]
        kafkaProperties = fromFile.merging(try KafkaConfiguration.parseProperties(
            arguments.values("kafka-property"), separatedByCommas: arguments.isFromEnvironment("kafka-property")), uniquingKeysWith: { $1 })
        if quietUnlessVerbose {
            trouble = BrokerTrouble(bootstrap: bootstrapServers)
            isVerbose = arguments.flag("verbose")
        }
    }

    /// The connection `arguments` give, once a broker is named: with neither `--bootstrap` nor its variable, a
    /// long-running process waits for the local broker's address file to appear (the broker not started yet),
    /// telling `waiting` why, rather than exiting. Nil when `shutdown` fires first.
    public static func awaitingBroker(_ arguments: ParsedArguments, until shutdown: ShutdownSignal,
                                      waiting: (String) -> Void) async throws(UsageError) -> ConnectionOptions? {
        let dataDirectory = arguments.value("data-dir") ?? "data"
        var told = false
        while arguments.value("bootstrap") == nil, BrokerFollower(file: bootstrapFile(in: dataDirectory)).address() == nil {
            let reason = "no broker address yet: waiting for \(bootstrapFile(in: dataDirectory)) (`registrar-dev broker --data-dir "
                + "\(dataDirectory)`), or give --bootstrap"
            waiting(reason)
            if !told { Logger(component: "connection").warning(reason) }
            told = true
            guard await shutdown.sleep(for: .seconds(1)) else { return nil }
        }
        return try ConnectionOptions(arguments)
    }

    /// Runs `body`, turning a failure to reach the broker into the one line that says so (a `CommandFailure`).
    public func explainingBrokerTrouble<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            if let line = trouble?.explain(error) { throw CommandFailure(line) }
            throw error
        }
    }

    /// The properties of a `--kafka-properties-file`: one `name=value` a line, blank lines and `#` comments skipped.
    /// The file holds credentials, so it is read only when `SecretFileRule` allows it.
    static func properties(inFile path: String) throws(UsageError) -> [String: String] {
        do throws(PrivateFileError) {
            try SecretFileRule.current.check(path)
        } catch {
            throw .invalid("--kafka-properties-file: \(error)", "")
        }
        guard let data = FileManager.default.contents(atPath: path) else { throw .invalid("cannot read --kafka-properties-file \(path)", "") }
        let lines = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
        let entries = lines.filter { let text = $0.trimmingCharacters(in: .whitespaces); return !text.isEmpty && !text.hasPrefix("#") }
        return try KafkaConfiguration.parseProperties(entries, separatedByCommas: false)
    }

    // Failover (every setting in one place; `--kafka-property` overrides them). A killed replica's partitions must
    // move within 15 s (`FailoverCycleTests` measures each kill): the group notices the silent member after the
    // session timeout, then rebalances.

    /// How long a group waits for a silent member (killed, frozen, cut off) before moving its partitions
    /// to the others, on a real broker: 6 s, the least a default Kafka broker allows (`group.min.session.timeout.ms`).
    /// A worker given `--group-instance-id` rejoins after a restart as the same static member, taking its partitions
    /// back without waiting for the session timeout or a rebalance.
    public static let sessionTimeout = Duration.seconds(6)
    /// How often members heartbeat on a real broker: a sixth of the session timeout, so a few lost beats are survived.
    public static let heartbeatInterval = Duration.seconds(1)
    /// The session timeout on the local broker (librdkafka 2.0.2's mock cluster), which delays every rebalance round
    /// by the session timeout less a second and knows no static membership: with 6 s a kill followed by a restart cost
    /// two rounds, 16 s; with 3 s it costs about 8.
    public static let localSessionTimeout = Duration.seconds(3)
    /// How often members heartbeat on the local broker: a sixth of its session timeout.
    public static let localHeartbeatInterval = Duration.milliseconds(500)
    /// The local broker's session settings as librdkafka properties, for a real broker that allows a session timeout
    /// under Kafka's 6 s minimum (Tansu 0.6: there a killed replica's partitions move in 8–10 s, against 12–14 s with 6 s).
    public static let shortSessionProperties = [
        "session.timeout.ms=\(localSessionTimeout.milliseconds)", "heartbeat.interval.ms=\(localHeartbeatInterval.milliseconds)",
    ]

    /// How long a worker's fetch may wait on a broker that answers as soon as data arrives (every real broker): an
    /// idle worker asks twice a second. The local broker (librdkafka's mock cluster) holds every empty fetch for the
    /// whole wait, data or not, so its consumers keep `KafkaConfiguration`'s 50 ms.
    public static let longFetchWait = Duration.milliseconds(500)

    /// Whether the broker at `bootstrapServers` is the local one, librdkafka's mock cluster, which names itself in
    /// its cluster id. A broker that does not answer within `timeout` (a loaded machine, a broker starting) counts as
    /// the local one when its address came from the local broker's file, else as a real one. Blocks the caller.
    public func isMockCluster(_ bootstrapServers: String, timeout: Duration = .seconds(5)) -> Bool {
        let admin = try? KafkaAdmin(configuration: kafka(clientID: "registrar-probe", bootstrapServers: bootstrapServers))
        return admin?.isMockCluster(timeout: timeout) ?? (bootstrapFile != nil)
    }

    /// A Kafka configuration for a client named `clientID`: for consumers, the failover settings above
    /// and the cooperative-sticky assignor (members keep their partitions while one joins or leaves), and
    /// `longFetchWait` unless `isLocalBroker`. `--kafka-property` overrides any of them.
    public func kafka(clientID: String, isLocalBroker: Bool = true) -> KafkaConfiguration {
        kafka(clientID: clientID, bootstrapServers: bootstrapServers, isLocalBroker: isLocalBroker)
    }

    /// The same configuration on another broker address (a restarted local broker's).
    public func kafka(clientID: String, bootstrapServers: String, isLocalBroker: Bool = true) -> KafkaConfiguration {
        var configuration = KafkaConfiguration(bootstrapServers: bootstrapServers, clientID: clientID)
        if !isLocalBroker { configuration.fetchWaitMax = Self.longFetchWait }
        configuration.sessionTimeout = isLocalBroker ? Self.localSessionTimeout : Self.sessionTimeout
        configuration.heartbeatInterval = isLocalBroker ? Self.localHeartbeatInterval : Self.heartbeatInterval
        configuration.assignmentStrategy = .cooperativeSticky
        configuration.properties = kafkaProperties
        if let trouble {
            trouble.listen(to: &configuration, verbose: isVerbose, logger: Logger(component: clientID))
        } else {
            configuration.log(to: Logger(component: clientID))
        }
        return configuration
    }
}
