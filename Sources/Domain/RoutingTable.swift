/// A worker's steps by route: one step per (topic, event type). The worker subscribes to the
/// table's topics and hands each event to the step of its route.
public struct RoutingTable: Sendable {
    private let steps: [Route: any EventHandler]

    /// The table of `steps`' routes. Two steps claiming one route is a programming error.
    public init(_ steps: [any EventHandler]) {
        var table: [Route: any EventHandler] = [:]
        for step in steps {
            for route in type(of: step).routes {
                if let claimant = table[route] {
                    preconditionFailure("\(route) is claimed by both \(type(of: claimant)) and \(type(of: step))")
                }
                table[route] = step
            }
        }
        self.steps = table
    }

    /// Every route some step takes.
    public var routes: Set<Route> { Set(steps.keys) }

    /// The topics to subscribe to, sorted.
    public var topics: [String] { Set(steps.keys.map(\.topic)).sorted() }

    /// The step that takes `type` on `topic`, if any.
    public func step(for type: Event.Kind, on topic: String) -> (any EventHandler)? {
        steps[Route(type, on: topic)]
    }
}
