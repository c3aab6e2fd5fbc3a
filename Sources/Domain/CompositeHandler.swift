/// Several steps in one worker: each event goes to the first step that takes it.
public struct CompositeHandler: EventHandler {
    public var steps: [any EventHandler]

    public init(_ steps: [any EventHandler]) {
        self.steps = steps
    }

    /// Throws `UnexpectedEvent` when no step takes the event.
    public func handle(_ event: Event) throws -> [Event] {
        var unexpected = UnexpectedEvent(type: event.type, worker: "composite")
        for step in steps {
            do {
                return try step.handle(event)
            } catch let error as UnexpectedEvent {
                unexpected = error
            }
        }
        throw unexpected
    }
}
