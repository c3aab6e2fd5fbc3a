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

    /// The events answering one of this step's requests that was dead-lettered, given its `failure`
    /// outcome (`RequestFailure`). By default the failure itself; a step that remembers its answers
    /// keeps the failure (or returns the answer it gave already), so a redelivery or a replay of the
    /// request is answered the same.
    func answer(deadLettered failure: Event) throws -> [Event]

    /// The heartbeat of `event` while its step waits for a failing dependency (retrying): events that tell whoever
    /// waits for the step's replies that it is alive and waiting, so that a saga's deadline does not undo the work
    /// it holds (this event, and those queued behind it). Published to every partition of its topic. None by default.
    func heartbeat(of event: Event) -> [Event]
}

extension EventHandler {
    public func answer(deadLettered failure: Event) throws -> [Event] { [failure] }

    public func heartbeat(of event: Event) -> [Event] { [] }
}

extension EventHandler {
    /// Stops on `event`, which is none of the step's routes: the routing table never hands one over,
    /// so being given one is a programming error.
    public func unrouted(_ event: Event) -> Never {
        preconditionFailure("\(Self.self) has no route for \(event.type)")
    }
}
