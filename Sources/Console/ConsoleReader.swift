import Accounts
import Domain
import EventTransport
import Foundation
import Kafka
import Support
import Synchronization
import WorkerAssembly

/// Keeps `ConsoleState` up to date in the background, so that a page never waits for Kafka or the stores:
/// - a consumer of its own (no group) follows every topic from the start of a bounded window of each partition —
///   on a real cluster the last `span` (offsets looked up by time) and at most `perPartition` messages, on the local
///   mock broker (which cannot look offsets up by time) the last `perPartition` messages — never a whole topic;
/// - every `refresh`: each partition's offsets, each worker group's committed offsets (its lag per partition) and
///   members (DescribeConsumerGroups; not the mock broker's, which has none), a sample for the charts, the view;
/// - every `auditEvery`, a slower schedule: the audit of the stores.
final class ConsoleReader: Sendable {
    struct Settings: Sendable {
        var perPartition = 1000
        var span: Duration = .seconds(3600)
        var refresh: Duration = .seconds(5)
        var auditEvery: Duration = .seconds(300)
        var grace: Duration = .seconds(300)
        /// The local mock broker: no lookup by time, no DescribeGroups.
        var isLocalBroker = false
    }

    let settings: Settings
    private let kafka: KafkaConfiguration
    private let audit: RegistrationAudit
    private let members: GroupMembers
    private let state: Mutex<ConsoleState>
    /// The consumer following the topics and the partitions it reads (for the offsets it fetched), while it runs.
    private let follower = Mutex<(consumer: KafkaConsumer, partitions: [TopicPartition])?>(nil)
    /// One consumer per worker group, joining nothing, to ask for the group's committed offsets.
    private let groupConsumers = Mutex<[String: KafkaConsumer]>([:])
    private let logger = Logger(component: "console")

    init(kafka: KafkaConfiguration, audit: RegistrationAudit, settings: Settings) throws {
        self.kafka = kafka
        self.audit = audit
        self.settings = settings
        members = try GroupMembers(kafka: kafka, isLocalBroker: settings.isLocalBroker)
        let window = settings.isLocalBroker
            ? "the last \(settings.perPartition) messages of each partition (the local broker cannot look offsets up by time)"
            : "the last \(Int(settings.span.timeInterval / 60)) minutes of each partition, at most \(settings.perPartition) messages"
        state = Mutex(ConsoleState(startedAt: Date(), window: window, history: ConsoleHistory(span: settings.span)))
    }

    /// What the console knows now.
    var current: ConsoleState { state.withLock { $0 } }

    /// Runs the three schedules until cancelled.
    func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.follow() }
            group.addTask { await self.repeatedly(every: self.settings.refresh) { await self.refresh() } }
            group.addTask { await self.repeatedly(every: self.settings.auditEvery) { await self.runAudit() } }
            await group.waitForAll()
        }
        for consumer in groupConsumers.withLock({ Array($0.values) }) { await consumer.close(within: .seconds(5)) }
    }

    private func repeatedly(every interval: Duration, _ work: () async -> Void) async {
        while !Task.isCancelled {
            await work()
            try? await Task.sleep(for: interval)
        }
    }

    // MARK: The window

    /// Reads every topic from its window's start as messages come, again after a failure.
    private func follow() async {
        while !Task.isCancelled {
            do {
                let consumer = try KafkaConsumer(configuration: kafka, assignment: [])
                defer { follower.withLock { $0 = nil } }
                do {
                    let starts = try await offload { try self.windowStarts(with: consumer) }
                    try consumer.assign(starts.map { TopicPartitionOffset(topic: $0.key.topic, partition: $0.key.partition, offset: .offset($0.value)) })
                    follower.withLock { $0 = (consumer, Array(starts.keys)) }
                    state.withLock { $0.problems["topics"] = nil }
                    for try await message in consumer.messages { take(message) }
                } catch {
                    await consumer.close(within: .seconds(5))
                    throw error
                }
                await consumer.close(within: .seconds(5))
            } catch {
                state.withLock { $0.problems["topics"] = "\(error)" }
                logger.warning("cannot read the topics; trying again", ["error": "\(error)"])
                try? await Task.sleep(for: settings.refresh)
            }
        }
    }

    /// Where each partition's window starts: `perPartition` messages before its end, and on a real cluster not
    /// before the first message of the last `span` (a partition with none is read from its end).
    private func windowStarts(with consumer: KafkaConsumer) throws -> [TopicPartition: Int64] {
        let timeout = Duration.seconds(10)
        var starts: [TopicPartition: Int64] = [:]
        var ends: [TopicPartition: Int64] = [:]
        for topic in Topic.all.map(\.name) {
            for partition in 0..<Int32(try consumer.partitionCount(topic: topic, timeout: timeout)) {
                let key = TopicPartition(topic: topic, partition: partition)
                let marks = try consumer.watermarks(topic: topic, partition: partition, timeout: timeout)
                starts[key] = max(marks.low, marks.high - Int64(settings.perPartition))
                ends[key] = marks.high
            }
        }
        if !settings.isLocalBroker {
            let recent = try consumer.offsets(at: Date().addingTimeInterval(-settings.span.timeInterval), of: Array(ends.keys), timeout: timeout)
            for (key, start) in starts { starts[key] = max(start, recent[key] ?? ends[key] ?? start) }
        }
        return starts
    }

    /// Adds `message` to its partition's window, dropping the oldest beyond `perPartition`.
    private func take(_ message: KafkaMessage) {
        let windowed = WindowedMessage(message: message, event: try? EventCodec.decode(message.value))
        let partition = TopicPartition(topic: message.topic, partition: message.partition)
        let limit = settings.perPartition
        state.withLock { state in
            state.messages[partition, default: []].append(windowed)
            // Trimmed in batches, so that each message does not move the whole window.
            if let count = state.messages[partition]?.count, count > limit + limit / 4 + 1 {
                state.messages[partition]?.removeFirst(count - limit)
            }
        }
    }

    // MARK: Every refresh

    /// Samples offsets and groups, and works out the view.
    func refresh() async {
        let now = Date()
        let offsets = follower.withLock { follower in
            Dictionary(uniqueKeysWithValues: (follower?.partitions ?? []).compactMap { key in
                follower?.consumer.fetchedWatermarks(of: key).map { (key, $0) }
            })
        }
        var groups: [ConsumerGroupLag] = []
        var groupsProblem: String?
        do {
            groups = try await offload { try self.groupLags(offsets) }
        } catch {
            groupsProblem = "\(error)"
        }
        var described: [String: Result<ConsumerGroupDescription, KafkaError>] = [:]
        var membersProblem: String?
        do { described = try await members.describe() } catch { membersProblem = "\(error)" }
        let cutoff = now.addingTimeInterval(-settings.span.timeInterval)
        let window = state.withLock { state in
            for (key, messages) in state.messages {
                if let first = messages.firstIndex(where: { ($0.message.timestamp ?? now) >= cutoff }), first > 0 {
                    state.messages[key]?.removeFirst(first)
                } else if messages.last.map({ ($0.message.timestamp ?? now) < cutoff }) ?? false {
                    state.messages[key] = []
                }
            }
            return state.messages
        }
        let view = ConsoleView(window, at: now)
        state.withLock { state in
            if !offsets.isEmpty { state.offsets = offsets }
            state.unread = Dictionary(uniqueKeysWithValues: offsets.map { key, marks in
                (key, max(0, marks.high - ((state.messages[key]?.last?.message.offset).map { $0 + 1 } ?? marks.high)))
            })
            state.groups = groups
            state.problems["consumer groups"] = groupsProblem
            state.members = described
            state.membersProblem = membersProblem
            if !offsets.isEmpty {
                let ends = Dictionary(offsets.map { ($0.key.topic, $0.value.high) }, uniquingKeysWith: +)
                let lags = Dictionary(uniqueKeysWithValues: groups.map { ($0.group, $0.total) })
                state.history.record(.init(time: now, ends: ends, lags: lags))
            }
            state.view = view
            state.refreshedAt = now
        }
    }

    /// Each worker group's lag on every partition of the topics it reads, against `offsets`.
    private func groupLags(_ offsets: [TopicPartition: (low: Int64, high: Int64)]) throws -> [ConsumerGroupLag] {
        try TopicAccess.workers.map { worker in
            let partitions = offsets.keys.filter { TopicAccess.worker(worker).reads.contains($0.topic) }
                .sorted { ($0.topic, $0.partition) < ($1.topic, $1.partition) }
            let committed = try groupConsumer(worker.name).committedOffsets(partitions, timeout: .seconds(5))
            return ConsumerGroupLag(group: worker.name, partitions: partitions.map { key in
                ConsumerGroupLag.Partition(key, committed: committed[key], low: offsets[key]?.low ?? 0, end: offsets[key]?.high ?? 0)
            })
        }
    }

    private func groupConsumer(_ group: String) throws -> KafkaConsumer {
        try groupConsumers.withLock { consumers in
            if let consumer = consumers[group] { return consumer }
            var configuration = kafka
            configuration.groupID = group
            let consumer = try KafkaConsumer(configuration: configuration, assignment: [])
            consumers[group] = consumer
            return consumer
        }
    }

    // MARK: The audit

    private func runAudit() async {
        let findings: Result<RegistrationAudit.Report, any Error>
        do {
            findings = .success(try await offload { [audit, settings] in try audit.report(grace: settings.grace) })
        } catch {
            findings = .failure(error)
        }
        let now = Date()
        state.withLock { state in
            state.audit = .init(ranAt: now, findings: findings)
            state.nextAudit = now.addingTimeInterval(settings.auditEvery.timeInterval)
        }
    }
}
