import Domain
import EventTransport
import Foundation
import Kafka
import Registration
import Support
import WorkerAssembly

/// What the console shows, read from Kafka and the stores at one moment. A part that could not be
/// read is left empty and its error kept in `problems`.
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

    var readAt: Date
    var groups: [ConsumerGroupLag] = []
    /// Each group's members (the workers alive in it), or why the cluster did not describe it.
    var members: [String: Result<ConsumerGroupDescription, KafkaError>] = [:]
    /// Registrations and email changes, newest first.
    var flows: [Flow] = []
    var outcomes: [OutcomeCount] = []
    /// Dead letters, newest first.
    var deadLetters: [KafkaMessage] = []
    var findings: [RegistrationAudit.Finding] = []
    var problems: [String] = []

    /// How far back outcomes count as recent.
    static let recentOutcomes: Duration = .seconds(15 * 60)

    /// Reads every part at once: the workers' groups' lag and (through `members`) their members, every topic
    /// once, and the audit of the stores.
    static func read(kafka: KafkaConfiguration, members: @escaping @Sendable () async throws -> [String: Result<ConsumerGroupDescription, KafkaError>],
                     audit: RegistrationAudit, grace: Duration) async -> ConsoleView {
        var view = ConsoleView(readAt: Date())
        async let groups = offload {
            try TopicAccess.workers.map { try ConsumerGroupLag.read(group: $0.name, topics: TopicAccess.worker($0).reads.sorted(), configuration: kafka) }
        }
        async let described = members()
        async let messages = TopicSnapshot.read(Topic.all.map(\.name), configuration: kafka)
        async let findings = offload { try audit.run(grace: grace) }
        do { view.groups = try await groups } catch { view.problems.append("consumer groups: \(error)") }
        do { view.members = try await described } catch { view.problems.append("consumer group members: \(error)") }
        do {
            let messages = try await messages
            view.flows = flows(in: messages)
            view.outcomes = outcomes(in: messages, since: view.readAt.addingTimeInterval(-recentOutcomes.timeInterval))
            view.deadLetters = messages.filter { DeadLetterCommand.topics.contains($0.topic) }
                .sorted { ($0.timestamp ?? .distantPast) > ($1.timestamp ?? .distantPast) }
        } catch { view.problems.append("topics: \(error)") }
        do { view.findings = try await findings } catch { view.problems.append("audit: \(error)") }
        return view
    }

    /// The registrations and email changes among `messages`, grouped by their id (their dead letters included,
    /// as `registrar status` shows them), newest first.
    private static func flows(in messages: [KafkaMessage]) -> [Flow] {
        let byKey = Dictionary(grouping: messages) { $0.keyString ?? "" }
        return byKey.compactMap { id, messages -> Flow? in
            let first = messages.lazy.compactMap { try? EventCodec.decode($0.value) }.first { event in
                if case .registrationRequested = event { return true }
                if case .emailChangeRequested = event { return true }
                return false
            }
            guard let first else { return nil }
            let path = SagaPath(messages)
            let kind = if case .registrationRequested = first { "registration" } else { "email change" }
            return Flow(kind: kind, id: id, started: path.steps.first?.time, path: path)
        }.sorted { ($0.started ?? .distantPast) > ($1.started ?? .distantPast) }
    }

    /// The outcomes on the public outcome topics by type and reason: all, and those since `recent`.
    private static func outcomes(in messages: [KafkaMessage], since recent: Date) -> [OutcomeCount] {
        var counts: [String: OutcomeCount] = [:]
        for message in messages where Topic.outcomes.contains(message.topic) {
            guard let event = try? EventCodec.decode(message.value) else { continue }
            let reason = event.refusalReason?.rawValue ?? "none"
            var count = counts["\(event.type) \(reason)", default: OutcomeCount(type: event.type, reason: reason, recent: 0, total: 0)]
            count.total += 1
            if let time = message.timestamp, time >= recent { count.recent += 1 }
            counts["\(event.type) \(reason)"] = count
        }
        return counts.values.sorted { ($0.type, $0.reason) < ($1.type, $1.reason) }
    }
}
