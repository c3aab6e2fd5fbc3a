/// One worker's step: takes the events of its routes and returns the events to publish.
///
/// Handlers are idempotent: the same event handled twice publishes equivalent events and creates
/// nothing twice, since every input is delivered at least once.
public protocol EventHandler: Sendable {
    /// The (topic, event type) pairs this step takes; a worker's `RoutingTable` hands it only those.
    static var routes: Set<Route> { get }

    /// Handles `event`, one of the step's routes. Throws `StoreError` with kind `.transient` when the
    /// step should be retried.
    func handle(_ event: Event) throws -> [Event]
}

extension EventHandler {
    /// Stops on `event`, which is none of the step's routes: the routing table never hands one over,
    /// so being given one is a programming error.
    public func unrouted(_ event: Event) -> Never {
        preconditionFailure("\(Self.self) has no route for \(event.type)")
    }
}
