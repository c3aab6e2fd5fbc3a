import Domain
import Kafka
import Support
import WorkerRuntime

/// One worker as its options configure it: its name (also its consumer group), its steps by route,
/// and the work it runs periodically beside the consumer (e.g. the stuck-saga sweep).
public struct WorkerStack: Sendable {
    public var name: String
    public var routing: RoutingTable
    public var periodic: (@Sendable () throws -> [Event])?

    public init(name: String, routing: RoutingTable, periodic: (@Sendable () throws -> [Event])? = nil) {
        self.name = name
        self.routing = routing
        self.periodic = periodic
    }

    /// Runs the stack's `Worker` on `configuration`'s broker until `shutdown`, the periodic work every `interval`.
    public func run(on configuration: KafkaConfiguration, until shutdown: ShutdownSignal, every interval: Duration = .seconds(5),
                    retry: Backoff = .worker, grace: Duration = .seconds(10)) async throws {
        let worker = try Worker(name: name, configuration: configuration, routing: routing, retry: retry, grace: grace)
        try await worker.run(until: shutdown, every: interval, periodic: periodic)
    }
}
