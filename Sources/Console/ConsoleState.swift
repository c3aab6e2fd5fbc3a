import Accounts
import Domain
import Foundation
import Kafka

/// A message of the console's window with its event, decoded once (nil when it does not decode).
struct WindowedMessage: Sendable {
    var message: KafkaMessage
    var event: Event?
}

/// What the console knows, kept up to date in the background by `ConsoleReader`; each page is rendered from it at
/// once, without asking Kafka or the stores anything.
struct ConsoleState: Sendable {
    /// The result of one audit of the stores.
    struct Audit: Sendable {
        var ranAt: Date
        var findings: Result<RegistrationAudit.Report, any Error>
    }

    var startedAt: Date
    /// What each partition's window is, as the page says it.
    var window: String
    /// The last messages of each partition (within the window), oldest first.
    var messages: [TopicPartition: [WindowedMessage]] = [:]
    /// How many messages the reader is behind the end of each partition it reads (beyond the window if large).
    var unread: [TopicPartition: Int64] = [:]
    /// Each partition's oldest and next offsets, as last fetched.
    var offsets: [TopicPartition: (low: Int64, high: Int64)] = [:]
    /// Each worker group's committed offsets against the partitions' ends.
    var groups: [ConsumerGroupLag] = []
    /// Each group's members (the workers alive in it), or why the cluster did not describe it.
    var members: [String: Result<ConsumerGroupDescription, KafkaError>] = [:]
    var membersProblem: String?
    var history: ConsoleHistory
    /// The flows, outcomes and dead letters in the window, as of `refreshedAt`.
    var view = ConsoleView()
    var refreshedAt: Date?
    var audit: Audit?
    var nextAudit: Date?
    /// What could not be read at the last attempt, by part (topics, consumer groups, …).
    var problems: [String: String] = [:]
}
