/// An event type on a topic: what a step takes. A worker hands each event to the step whose route
/// is the event's type on the topic it arrived on, and dead-letters it when there is none.
public struct Route: Hashable, Sendable, CustomStringConvertible {
    public var type: Event.Kind
    public var topic: String

    public init(_ type: Event.Kind, on topic: String) {
        self.type = type
        self.topic = topic
    }

    /// The routes of each topic's types, e.g. `Route.set([Topic.imageCommands: [.storeAvatar, .deleteAvatar]])`.
    public static func set(_ typesByTopic: [String: [Event.Kind]]) -> Set<Route> {
        Set(typesByTopic.flatMap { topic, types in types.map { Route($0, on: topic) } })
    }

    public var description: String { "\(type.rawValue) on \(topic)" }
}
