import Accounts
import Domain
import EventTransport
import Foundation
import Kafka

/// One registration's path through the topics, read back from the broker (or one request's; or one account's events,
/// read by its uid).
public struct SagaPath: Sendable {
    public struct Step: Sendable {
        public var time: Date?
        public var topic: String
        public var summary: String
    }

    public var steps: [Step]
    /// "completed", "failed: <reason>", "in progress" or "unknown".
    public var standing: String
    /// Its completed outcome, whose details are sealed to the requester's reply key.
    public var completed: RegistrationCompleted?

    /// The path of `registrationId` (a request id; a uid, for its account events) on `topics` (every topic by default),
    /// read for at most `timeout`, and the snapshot it was read from (partial when some partition was not read to its end in time).
    public static func read(_ registrationId: String, on topics: [String] = Topic.all.map(\.name), kafka: KafkaConfiguration,
                     timeout: Duration = .seconds(10)) async throws -> (path: SagaPath, snapshot: TopicSnapshot) {
        let snapshot = try await TopicSnapshot.take(topics, configuration: kafka, timeout: timeout) {
            $0.keyString == registrationId
        }
        return (SagaPath(snapshot.messages), snapshot)
    }

    /// The path of one flow's messages (those keyed by its id), given in any order.
    public init(_ messages: [KafkaMessage]) {
        self.init(decoded: messages.map { ($0, try? EventCodec.decode($0.value)) })
    }

    /// The path of one flow's messages with their events (nil for an undecodable message), given in any order.
    init(decoded messages: [(message: KafkaMessage, event: Event?)]) {
        let ordered = messages.sorted {
            ($0.message.timestamp ?? .distantPast, $0.message.offset) < ($1.message.timestamp ?? .distantPast, $1.message.offset)
        }
        var standing = ordered.isEmpty ? "unknown" : "in progress"
        var completed: RegistrationCompleted?
        steps = ordered.map { message, event in
            guard let event else {
                return Step(time: message.timestamp, topic: message.topic, summary: Self.announcement(in: message) ?? "undecodable message")
            }
            switch event {
            case .registrationCompleted(let outcome):
                standing = "completed"
                completed = outcome
            case .accountChangeCompleted: standing = "completed"
            case .registrationFailed, .accountChangeFailed: standing = "failed: \(event.refusalReason?.rawValue ?? "")"
            default: break
            }
            return Step(time: message.timestamp, topic: message.topic, summary: Self.summary(of: event))
        }
        self.standing = standing
        self.completed = completed
    }

    /// The path as JSON: each step's time, topic and summary.
    public var json: [[String: Any]] {
        steps.map { ["time": JSONOutput.time($0.time), "topic": $0.topic, "summary": $0.summary] }
    }

    /// The path as printable lines.
    public var lines: [String] {
        steps.map { step in
            let time = step.time.map { $0.formatted(.iso8601.time(includingFractionalSeconds: true)) } ?? "-"
            return "  \(time)  \(step.topic.padding(toLength: Self.topicWidth, withPad: " ", startingAt: 0)) \(step.summary)"
        } + ["  → \(standing)"]
    }

    /// The longest topic name (a dead-letter topic's): the width of the topic column.
    private static let topicWidth = Topic.all.map(\.name.count).max() ?? 0

    /// The summary of an account event read on an announcement topic (its type, the fields it says changed, its actor).
    private static func announcement(in message: KafkaMessage) -> String? {
        guard Announcements.all.contains(where: { $0.topic == message.topic }), let event = AccountEvent(decoding: message.value) else { return nil }
        return ([event.type.rawValue] + (event.changed.isEmpty ? [] : ["changed=" + event.changed.map(\.rawValue).joined(separator: ",")])
            + (event.actor.map { ["by=" + $0] } ?? [])).joined(separator: " ")
    }

    private static func summary(of event: Event) -> String {
        switch event {
        case .registrationRequested(let e): "RegistrationRequested email=\(e.email) avatar=\(e.avatar == nil ? "default" : "given")"
        case .emailChangeRequested(let e): "EmailChangeRequested email=\(e.email) newEmail=\(e.newEmail)"
        case .avatarStored(let e): "AvatarStored \(e.url)"
        case .avatarRejected(let e): "AvatarRejected \(e.reason.rawValue)"
        case .profileRejected(let e): "ProfileRejected \(e.reason.rawValue)"
        case .registrationFailed(let e): "RegistrationFailed \(e.reason.rawValue): \(e.message)"
        default: event.type
        }
    }
}
