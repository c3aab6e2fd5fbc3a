import Domain
import EventTransport
import Kafka
import Support
import WorkerRuntime

/// One worker as its options configure it: its name (also its consumer group), its steps by route,
/// the work it runs periodically beside the consumer (e.g. the stuck-saga sweep), the outbox of its store
/// that it publishes (the announcements its store's changes keep), and the side effects its store keeps that it
/// performs (the welcome mails its sagas' moves keep).
public struct WorkerStack: Sendable {
    public var name: String
    public var routing: RoutingTable
    public var periodic: (@Sendable () throws -> [Event])?
    /// Told before each round of `periodic` whether the worker hears its broker (a saga sweep's watches count none of
    /// the time it does not).
    public var hearing: (@Sendable (Bool) -> Void)?
    public var outbox: (any Outbox)?
    public var effects: SideEffects?

    public init(name: String, routing: RoutingTable, periodic: (@Sendable () throws -> [Event])? = nil,
                hearing: (@Sendable (Bool) -> Void)? = nil, outbox: (any Outbox)? = nil, effects: SideEffects? = nil) {
        self.name = name
        self.routing = routing
        self.periodic = periodic
        self.hearing = hearing
        self.outbox = outbox
        self.effects = effects
    }

    /// Runs the stack's `Worker` on `configuration`'s broker until `shutdown`, the periodic work every `interval`,
    /// signing its events with `signer` and taking other workers' events that `verifier` authenticates.
    /// A step waiting for a failing dependency publishes its heartbeat every `heartbeat` (`--heartbeat-interval`).
    /// `board`, when given, shows the worker while it runs (for the health endpoints). When `gone` has fired by the time
    /// `shutdown` does, the broker is gone with its data and the worker abandons its session (`Worker.run`).
    public func run(on configuration: KafkaConfiguration, signer: EventSigner, verifier: EventVerifier, until shutdown: ShutdownSignal,
                    abandoningIf gone: ShutdownSignal? = nil,
                    every interval: Duration = .seconds(5), retry: Backoff = .worker, grace: Duration = .seconds(10),
                    heartbeat: Duration = .seconds(30), board: WorkerBoard? = nil) async throws {
        let worker = try Worker(name: name, configuration: configuration, routing: routing, signer: signer, verifier: verifier,
                                retry: retry, grace: grace, heartbeat: heartbeat)
        board?.show(worker)
        defer { board?.show(nil) }
        try await worker.run(until: shutdown, abandoningIf: gone, every: interval, periodic: periodic, hearing: hearing, outbox: outbox,
                             effects: effects)
    }
}
