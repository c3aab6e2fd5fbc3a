import Domain
import Foundation
import Kafka

/// The flows, outcomes and dead letters among the messages of the console's window, worked out once per refresh.
struct ConsoleView: Sendable {
    /// A registration or an email change, with its path as `registrar status` shows it.
    struct Flow: Sendable {
        var kind: String
        var id: String
        var started: Date?
        var path: SagaPath
        var isInFlight: Bool { path.standing == "in progress" }
    }

    /// Outcomes of one type and reason (`none` for a success).
    struct OutcomeCount: Sendable {
        var type: String
        var reason: String
        var recent: Int
        var total: Int
    }

    /// Registrations and email changes, newest first.
    var flows: [Flow] = []
    /// Outcomes by type and reason: in the last 15 minutes, and in the window.
    var outcomes: [OutcomeCount] = []
    /// Each outcome type and reason's count per minute of the window (for the chart).
    var outcomesPerMinute: [String: [Date: Int]] = [:]
    /// Dead letters, newest first.
    var deadLetters: [KafkaMessage] = []

    /// How far back outcomes count as recent.
    static let recentOutcomes: Duration = .seconds(15 * 60)

    init() {}

    /// The view of `window` (each partition's messages with their events) at `now`.
    init(_ window: [TopicPartition: [WindowedMessage]], at now: Date) {
        let messages = window.values.joined()
        flows = Self.flows(in: messages)
        (outcomes, outcomesPerMinute) = Self.outcomes(in: messages, since: now.addingTimeInterval(-Self.recentOutcomes.timeInterval))
        deadLetters = messages.filter { DeadLetterCommand.topics.contains($0.message.topic) }.map(\.message)
            .sorted { ($0.timestamp ?? .distantPast) > ($1.timestamp ?? .distantPast) }
    }

    /// The registrations and email changes among `messages`, grouped by their id (their dead letters included,
    /// as `registrar status` shows them), newest first.
    private static func flows(in messages: some Sequence<WindowedMessage>) -> [Flow] {
        let byKey = Dictionary(grouping: messages) { $0.message.keyString ?? "" }
        return byKey.compactMap { id, messages -> Flow? in
            let kind = messages.lazy.compactMap { message -> String? in
                switch message.event {
                case .registrationRequested?: "registration"
                case .emailChangeRequested?: "email change"
                default: nil
                }
            }.first
            guard let kind else { return nil }
            let path = SagaPath(decoded: messages.map { ($0.message, $0.event) })
            return Flow(kind: kind, id: id, started: path.steps.first?.time, path: path)
        }.sorted { ($0.started ?? .distantPast) > ($1.started ?? .distantPast) }
    }

    /// The outcomes on the public outcome topics by type and reason (all, and those since `recent`), and per minute.
    private static func outcomes(in messages: some Sequence<WindowedMessage>,
                                 since recent: Date) -> ([OutcomeCount], [String: [Date: Int]]) {
        var counts: [String: OutcomeCount] = [:]
        var perMinute: [String: [Date: Int]] = [:]
        for windowed in messages where Topic.outcomes.contains(windowed.message.topic) {
            guard let event = windowed.event else { continue }
            let reason = event.refusalReason?.rawValue ?? "none"
            let name = "\(event.type) \(reason)"
            var count = counts[name, default: OutcomeCount(type: event.type, reason: reason, recent: 0, total: 0)]
            count.total += 1
            if let time = windowed.message.timestamp {
                if time >= recent { count.recent += 1 }
                perMinute[name, default: [:]][ConsoleHistory.minute(of: time), default: 0] += 1
            }
            counts[name] = count
        }
        return (counts.values.sorted { ($0.type, $0.reason) < ($1.type, $1.reason) }, perMinute)
    }
}
