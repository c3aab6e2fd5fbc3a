import Backends
import Courier
import Domain
import EventTransport
import Foundation
import HTTPServer
import Kafka
import Support
import WorkerRuntime

/// One kind of worker as the whole system sees it: its role, its command line, the steps it routes to and the letters
/// they mail — what the ACLs, the key distribution, the console and the templates derive from every kind
/// (`TopicAccess.workers`), without linking any kind's stores.
public protocol WorkerKind: SendableMetatype {
    /// The role whose event signing key it holds and signs its events with.
    static var role: WorkerRole { get }
    static var summary: String { get }
    /// The types of the steps its stack routes to (`TopicAccess` derives its topics from their routes).
    static var steps: [any EventHandler.Type] { get }
    /// The letters its steps mail, checked against the templates when it starts.
    static var letters: [Letter] { get }
    /// Its options besides the connection's.
    static var options: [CommandSpec.Option] { get }
}

/// A worker kind as its process runs it: how its options build its stack. Each role's assembly module (`AccountAssembly`,
/// `ImageAssembly`, `ProfileAssembly`, `CodeDispatchAssembly`) conforms its kind, so that a worker executable links only
/// the stores and C libraries of its own role; the worker executables and the in-process test tier build their stacks
/// through it alike.
public protocol RunnableWorker: WorkerKind {
    /// The stack `options` configure, with its stores in (or defaulting to) `dataDirectory`, reading the time from `clock`.
    static func stack(_ options: ParsedArguments, dataDirectory: String,
                      clock: @escaping @Sendable () -> Date) throws -> WorkerStack
}

extension WorkerKind {
    /// The worker's name (its role's): its command, its consumer group and its Kafka client id.
    public static var name: String { role.workerName }

    public static var letters: [Letter] { [] }

    /// The worker's command line: the connection's options and its own.
    public static var spec: CommandSpec {
        CommandSpec(name: name, summary: summary,
                    options: ConnectionOptions.specs + [groupInstanceOption, heartbeatOption, OperationsEndpoint.option] + WorkerKeys.eventSpecs
                        + options)
    }

    /// `--group-instance-id`: static membership on a real broker (see `ConnectionOptions.sessionTimeout`).
    static var groupInstanceOption: CommandSpec.Option {
        .value("group-instance-id", "This replica's stable name in its consumer group (unique per replica, e.g. the pod or host "
               + "name): restarted, it takes its partitions back at once; stopped, they move after the session timeout. Real brokers "
               + "only (the local broker ignores it)", environment: "REGISTRAR_GROUP_INSTANCE_ID")
    }

    /// `--heartbeat-interval`: how often a step waiting for a failing store tells its saga that it is alive.
    static var heartbeatOption: CommandSpec.Option {
        .value("heartbeat-interval", "Seconds between the heartbeats of a step waiting for a failing store (image and profile "
               + "workers), each of which restarts the deadline of its registration, email change or profile update; keep it under half the account worker's --saga-deadline",
               environment: "REGISTRAR_HEARTBEAT_INTERVAL", default: "30")
    }
}

extension RunnableWorker {
    /// The executable's `main`: parses the command line, builds the stack and runs it until SIGTERM or SIGINT.
    public static func main() async -> Never {
        await CommandLineTool.exit {
            await CommandLineTool.run(Array(CommandLine.arguments.dropFirst()), spec: spec) { parsed in
                try await run(parsed, until: ShutdownSignal())
                return .success
            }
        }
    }

    /// Runs the worker `parsed` (a command line parsed with `spec`) configures until `shutdown`, reading the
    /// time from `clock` and doing its periodic work every `interval`. Started while its broker, a store or its
    /// disk is unavailable, it waits (alive, not ready, saying why on `/readyz` and in its log) and starts once
    /// they are back; only a configuration it cannot use (an option, a key) ends it.
    public static func run(_ parsed: ParsedArguments, until shutdown: ShutdownSignal, clock: @escaping @Sendable () -> Date = Date.init,
                           every interval: Duration = .seconds(5)) async throws {
        let logger = Logger(component: name)
        let startup = StartupState()
        let board = WorkerBoard()
        let endpoint = try OperationsEndpoint.start(parsed, component: name) {
            if let waiting = startup.waitingFor { return HealthReport(isAlive: true, notReadyBecause: [waiting]) }
            let health = board.health()
            return HealthReport(isAlive: health.isRunning, notReadyBecause: health.reasons)
        }
        do {
            try await run(parsed, until: shutdown, clock: clock, every: interval, startup: startup, board: board, logger: logger)
        } catch {
            await endpoint?.stop()
            throw error
        }
        await endpoint?.stop()
    }

    private static func run(_ parsed: ParsedArguments, until shutdown: ShutdownSignal, clock: @escaping @Sendable () -> Date,
                            every interval: Duration, startup: StartupState, board: WorkerBoard, logger: Logger) async throws {
        guard let connection = try await ConnectionOptions.awaitingBroker(parsed, until: shutdown, waiting: startup.waiting) else { return }
        let keys = WorkerKeys(parsed, stores: BackendOptions(parsed, dataDirectory: connection.dataDirectory))
        let signer = try keys.eventSigner(role)
        guard let stack = try await StartupWait.open("its stores", until: shutdown, state: startup, logger: logger, {
            try stack(parsed, dataDirectory: connection.dataDirectory, clock: clock)
        }) else { return }
        let heartbeat = Duration.seconds(try parsed.integer("heartbeat-interval") ?? 30)
        let verifier = try keys.eventVerifier(trusting: stack.routing.producers)
        Worker.declareMetrics(name: name, routing: stack.routing, role: role)
        startup.started()
        let instance = parsed.value("group-instance-id")
        // A local broker that moved was restarted: gone with every message and offset it held, so the session on it is
        // abandoned. A real broker keeps its data wherever it listens: its session stops as at a shutdown (bounded by
        // the grace periods), and what it leaves uncommitted is read again on the new address.
        let session: @Sendable (String, ShutdownSignal, ShutdownSignal?) async throws -> Void = { address, until, moved in
            let isLocalBroker = try await offload { connection.isMockCluster(address) }
            var configuration = connection.kafka(clientID: name, bootstrapServers: address, isLocalBroker: isLocalBroker)
            if !isLocalBroker { configuration.groupInstanceID = instance }
            try await stack.run(on: configuration, signer: signer, verifier: verifier, until: until,
                                abandoningIf: isLocalBroker ? moved : nil, every: interval, heartbeat: heartbeat, board: board)
        }
        if let file = connection.bootstrapFile {
            try await BrokerFollower(file: file).run(from: connection.bootstrapServers, until: shutdown, logger: logger) { address, until, moved in
                try await session(address, until, moved)
            }
        } else {
            try await session(connection.bootstrapServers, shutdown, nil)
        }
    }
}
