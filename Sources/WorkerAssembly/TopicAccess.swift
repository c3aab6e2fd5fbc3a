import Domain

/// What a principal may do on a production cluster, derived from the topic contract: the ACLs that let a
/// worker read only its steps' topics and write only the events its role produces (`registrar topics acls`).
public struct TopicAccess: Sendable, Equatable {
    /// The principal's name, e.g. `account-worker` (a Kafka principal `User:<name>` by default).
    public var principal: String
    public var reads: Set<String>
    public var writes: Set<String>
    /// The consumer group it reads in, if any.
    public var group: String?

    /// Every worker kind, in a fixed order.
    public static let workers: [any WorkerKind.Type] = [AccountWorker.self, ImageWorker.self, ProfileWorker.self, CodeDispatchWorker.self]

    /// The routes of `kind`'s steps.
    public static func routes(of kind: any WorkerKind.Type) -> Set<Route> {
        Set(kind.steps.flatMap { $0.routes })
    }

    /// A worker reads its routes' topics in its own group and writes the topics of the event types its role
    /// produces, the announcement topics it publishes its store's outbox to, and the dead-letter topics of what it reads.
    public static func worker(_ kind: any WorkerKind.Type) -> TopicAccess {
        let reads = Set(routes(of: kind).map(\.topic))
        let produced = Event.Kind.allCases.filter { $0.producers.contains(kind.role) }.map(\.topic)
            + Announcements.all.filter { $0.roles.contains(kind.role) }.map(\.topic)
        return TopicAccess(principal: kind.name, reads: reads, writes: Set(produced).union(reads.map(Topic.deadLetters)),
                           group: kind.name)
    }

    /// A service outside Registrar consuming the announcements (`account.events`) in its consumer group `group`:
    /// it reads them and writes nothing.
    public static func eventsConsumer(named principal: String, group: String) -> TopicAccess {
        TopicAccess(principal: principal, reads: Set(Announcements.all.map(\.topic)), writes: [], group: group)
    }

    /// A client (the gateway, the CLI, any app backend): writes the requests on the public request topics and
    /// reads the public outcome topics, without a consumer group.
    public static func client(named principal: String) -> TopicAccess {
        let requests = Event.Kind.allCases.filter { $0.producers.isEmpty }.map(\.topic)
        return TopicAccess(principal: principal, reads: Set(Topic.outcomes), writes: Set(requests), group: nil)
    }

    /// An operator's tools (`registrar dlq`, `status`, `audit`, `operator`): read every topic, and write the input topics
    /// (a dead-letter replay republishes the original message, signature included, where it came from; the operator's
    /// account tools publish on `operator.requests`, which no client may write, and request reset codes).
    public static func operatorTools(named principal: String) -> TopicAccess {
        TopicAccess(principal: principal, reads: Set(Topic.all.map(\.name)), writes: Set(Topic.inputs), group: nil)
    }
}
