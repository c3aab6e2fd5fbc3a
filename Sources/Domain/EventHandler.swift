/// One worker's step: takes an event from its input topics and returns the events to publish.
///
/// Handlers are idempotent: the same event handled twice publishes equivalent events and creates
/// nothing twice, since every input is delivered at least once.
public protocol EventHandler: Sendable {
    /// Handles `event`. Throws `StoreError` with kind `.transient` when the step should be retried,
    /// and `UnexpectedEvent` for an event this worker does not take.
    func handle(_ event: Event) throws -> [Event]
}

/// An event of a type this worker does not take, e.g. a profile command on the image topic.
public struct UnexpectedEvent: Error, Sendable, CustomStringConvertible {
    public var type: String
    public var worker: String

    public init(type: String, worker: String) {
        self.type = type
        self.worker = worker
    }

    public var description: String { "\(worker) does not take \(type) events" }
}
