import Domain
import EventTransport
import Foundation
import Installation
import Kafka
import Registration
import Support
import Synchronization

/// The checks after a chaos run: every request one outcome, nothing half-registered, no email address
/// twice, every code sent emailed and no request two codes, every hostile message dead-lettered with
/// its reason and nothing else dead-lettered (a dependency failure is waited for), every fault
/// injected, no worker died; every app through the gateway one genuine answer (`checkApps`); every update and deletion of
/// a completed registration one genuine answer, complete or undone in every store (`checkLifecycle`). Its readers follow the local broker across restarts.
struct ChaosReport {
    var lines: [String] = []
    var passed = true

    mutating func check(_ condition: Bool, _ text: String) {
        lines.append((condition ? "PASS " : "FAIL ") + text)
        passed = passed && condition
    }

    /// - Parameters:
    ///   - sentMail: The directory holding one file per email the mail server accepted.
    ///   - failedFaults: The faults that could not be injected (a fault command failed).
    ///   - died: The workers found stopped during the run, before it started any again.
    ///   - apps: What the apps sending the workload's gateway share got.
    ///   - lifecycle: The updates and deletions of completed registrations, and what their owners got.
    ///   - watch: Says what the checks wait for while they wait long.
    static func collect(_ installation: LocalInstallation, workload: ChaosWorkload, settle: Duration, sentMail: String,
                        failedFaults: [String], died: [String], apps: [AppClient.Outcome], lifecycle: [LifecycleChecks.Case],
                        watch: WaitWatch) async throws -> ChaosReport {
        var report = ChaosReport()
        report.check(failedFaults.isEmpty, "every fault was injected\(failedFaults.isEmpty ? "" : "; failed: \(failedFaults)")")
        report.check(died.isEmpty, "no worker died\(died.isEmpty ? "" : "; died: \(died)")")
        let ids = workload.topicRegistrations.map(\.request.registrationId)
        let deadline = ContinuousClock.now + settle
        let outcomes = try await waitForOutcomes(ids, of: "the topic registrations", installation: installation, timeout: settle, watch: watch)

        let missing = ids.filter { outcomes[$0] == nil }
        // A registration whose account its owner deleted is answered completed again without its result (erased with the
        // account): for it, such a copy is no other outcome than its one sealed completion.
        let erased = deleted(lifecycle)
        let distinct = { (id: String) in
            let answers = (outcomes[id] ?? []).filter { outcome in
                guard erased.contains(id), case .registrationCompleted(let completed) = outcome else { return true }
                return !completed.sealedResult.isEmpty
            }
            return Set((answers.isEmpty ? outcomes[id] ?? [] : answers).map { String(decoding: EventCodec.encode($0), as: UTF8.self) })
        }
        let conflicting = ids.filter { distinct($0).count > 1 }
        let copies = outcomes.values.reduce(0) { $0 + $1.count } - outcomes.count
        report.check(missing.isEmpty, "every request has an outcome (\(ids.count - missing.count)/\(ids.count)\(missing.isEmpty ? "" : "; missing: \(missing.prefix(5))"))")
        let named = conflicting.prefix(3).map { id in
            "\(id): " + distinct(id).sorted().joined(separator: " | ")
        }
        report.check(conflicting.isEmpty, "no request has two different outcomes (\(conflicting.count) conflicting; \(copies) identical redelivered copies)"
                     + (named.isEmpty ? "" : "; " + named.joined(separator: "; ")))

        var completed = 0
        var failures: [ReasonCode: Int] = [:]
        var wrong: [String] = []
        for registration in workload.topicRegistrations {
            switch outcomes[registration.request.registrationId]?.first {
            case .registrationCompleted:
                completed += 1
                if registration.expectedFailure != nil { wrong.append(registration.request.registrationId) }
            case .registrationFailed(let failed):
                failures[failed.reason, default: 0] += 1
                // Past its deadline any saga may be failed and undone (an overloaded machine): still complete-or-undone.
                let lostRace = registration.racesForEmail && (failed.reason == .emailTaken || failed.reason == .invalidCredentials)
                let allowed = registration.expectedFailure == failed.reason || lostRace || failed.reason == .deadlineExceeded
                if !allowed { wrong.append("\(registration.request.registrationId): \(failed.reason.rawValue)") }
            default: break
            }
        }
        report.lines.append("     outcomes: \(completed) completed, " + failures.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.value) \($0.key.rawValue)" }.joined(separator: ", "))
        report.check(wrong.isEmpty, "every outcome is the one its request called for, or its deadline passed\(wrong.isEmpty ? "" : ": \(wrong.prefix(5))")")

        let stores = installation.stores
        let findings = try RegistrationAudit(accounts: try stores.accountStore(), profiles: try stores.profileStore(),
                                             images: try stores.objectStore()).run(grace: .zero)
        report.check(findings.isEmpty, "audit: \(findings.count) half-registered users, orphan images or stale pending accounts\(findings.isEmpty ? "" : ": \(findings.prefix(3))")")
        let accounts = try stores.accountStore().accounts()
        report.check(Set(accounts.map(\.email)).count == accounts.count, "no email address has two accounts (\(accounts.count) accounts)")
        completed += report.checkApps(apps, workload: workload, accounts: accounts, deleted: deleted(lifecycle))
        let deleted = try report.checkLifecycle(lifecycle, stores: stores)
        report.check(accounts.count == completed - deleted, "one account per completed registration not deleted (\(completed) completed, \(deleted) deleted)")

        try await report.checkRequests(workload, sentMail: sentMail, installation: installation, deadline: deadline,
                                       gatewayCodes: Self.codesSent(apps), watch: watch)
        try await report.checkDeadLetters(workload, installation: installation, deadline: deadline, watch: watch)
        let stopped = installation.stoppedWorkers
        report.check(stopped.isEmpty, "all workers still running\(stopped.isEmpty ? "" : "; stopped: \(stopped)")")
        return report
    }

    /// The registration outcomes published so far, polled until every id in `ids` (`what`, for `watch`) has one or
    /// `timeout` passes (a read while the broker restarts is tried again).
    @discardableResult
    static func waitForOutcomes(_ ids: [String], of what: String, installation: LocalInstallation, timeout: Duration,
                                watch: WaitWatch) async throws -> [String: [Event]] {
        let awaited = Mutex(ids)
        return try await watch.waiting(for: "the outcomes of \(what)", outstanding: { missingOnes(awaited.withLock { $0 }, of: ids.count) }) {
            let deadline = ContinuousClock.now + timeout
            var outcomes: [String: [Event]] = [:]
            repeat {
                if let messages = try? await read([Topic.registrationOutcomes], installation, watch: watch) {
                    outcomes = [:]
                    for message in messages {
                        if let event = try? EventCodec.decode(message.value) { outcomes[event.registrationId, default: []].append(event) }
                    }
                    let left = ids.filter { outcomes[$0] == nil }
                    awaited.withLock { $0 = left }
                    if left.isEmpty { break }
                }
                try await Task.sleep(for: .seconds(1))
            } while ContinuousClock.now < deadline
            return outcomes
        }
    }

    /// `missing` of `count` awaited, the first few named.
    static func missingOnes(_ missing: some Collection<String>, of count: Int) -> String {
        "\(missing.count) of \(count) missing (" + missing.sorted().prefix(5).joined(separator: ", ") + (missing.count > 5 ? ", …)" : ")")
    }

    /// Every dead letter is one of the run's hostile messages, with the reason it calls for, and every
    /// hostile message has one (redelivered copies aside): a failing dependency is waited for, never dead-lettered.
    private mutating func checkDeadLetters(_ workload: ChaosWorkload, installation: LocalInstallation,
                                           deadline: ContinuousClock.Instant, watch: WaitWatch) async throws {
        let expected = Dictionary(uniqueKeysWithValues: workload.hostile.map { (String(decoding: $0.message.key ?? [], as: UTF8.self), $0.reason.rawValue) })
        let awaited = Mutex(Set(expected.keys))
        let (letters, lettered) = try await watch.waiting(
            for: "the dead letters of the hostile messages", outstanding: { Self.missingOnes(awaited.withLock { $0 }, of: expected.count) }
        ) {
            var letters: [KafkaMessage] = []
            var lettered = Set<String>()
            repeat {
                letters = try await Self.read(Topic.inputs.map(Topic.deadLetters(of:)), installation, watch: watch)
                lettered = Set(letters.compactMap(\.keyString)).intersection(expected.keys)
                awaited.withLock { $0 = Set(expected.keys).subtracting(lettered) }
                if lettered.count == expected.count { break }
                try await Task.sleep(for: .seconds(1))
            } while ContinuousClock.now < deadline
            return (letters, lettered)
        }
        let reasons = Dictionary(grouping: letters) { Self.reason(of: $0) ?? "none" }
        lines.append("     dead letters: " + reasons.sorted { $0.key < $1.key }.map { "\($0.value.count) \($0.key)" }.joined(separator: ", "))
        // A saga command redelivered after a later step of its saga (a worker killed before committing it) is refused
        // as stale and changes nothing: no request's answer, no harm.
        let commandTopics = [Topic.imageCommands, Topic.profileCommands].map(Topic.deadLetters(of:))
        let unexpected = letters.filter { letter in
            letter.keyString.flatMap { expected[$0] } != Self.reason(of: letter)
                && !(commandTopics.contains(letter.topic) && Self.reason(of: letter) == DeadLetterReason.staleCommand.rawValue)
        }
        check(lettered.count == expected.count,
              "every hostile message dead-lettered (\(lettered.count)/\(expected.count)\(lettered.count == expected.count ? "" : "; not: \(Set(expected.keys).subtracting(lettered).sorted().prefix(5))"))")
        let described = unexpected.prefix(5).map { "\($0.topic) \($0.keyString ?? "no key"): \(Self.reason(of: $0) ?? "no reason")" }
        check(unexpected.isEmpty, "nothing else dead-lettered, and each with its reason (\(unexpected.count) other\(unexpected.isEmpty ? "" : ": \(described)"))")
    }

    /// A dead letter's `dlq.reason`.
    private static func reason(of letter: KafkaMessage) -> String? {
        letter.header("dlq.reason").map { String(decoding: $0, as: UTF8.self) }
    }

    /// What `topics` hold now on the installation's broker, wherever it listens.
    static func read(_ topics: [String], _ installation: LocalInstallation, watch: WaitWatch) async throws -> [KafkaMessage] {
        try await watch.waiting(for: "a read of " + topics.joined(separator: ", ")) {
            try await TopicSnapshot.read(topics, configuration: installation.kafka(clientID: "registrar-chaos-report"))
        }
    }

    /// Code requests and sign-ins: one answer each (a failing mail server is waited for); every code
    /// sent emailed, each request's code only (a copy is resent only when a crash left unknown whether
    /// the first was).
    private mutating func checkRequests(_ workload: ChaosWorkload, sentMail: String, installation: LocalInstallation,
                                        deadline: ContinuousClock.Instant, gatewayCodes: Set<String>, watch: WaitWatch) async throws {
        let ids = Set(workload.codeRequests.map(\.requestId) + workload.signIns.map(\.requestId))
        let awaited = Mutex(ids)
        let (answers, codesSent) = try await watch.waiting(
            for: "the answers to the code requests and sign-ins", outstanding: { Self.missingOnes(awaited.withLock { $0 }, of: ids.count) }
        ) {
            var answers: [String: Set<[UInt8]>] = [:]
            var sent = Set<String>()
            repeat {
                answers = [:]
                for message in try await Self.read([Topic.codeOutcomes, Topic.authOutcomes], installation, watch: watch) {
                    guard let event = try? EventCodec.decode(message.value), ids.contains(event.key) else { continue }
                    answers[event.key, default: []].insert(message.value)
                    if case .codeSent = event { sent.insert(event.key) }
                }
                awaited.withLock { $0 = ids.subtracting(answers.keys) }
                if answers.count == ids.count { break }
                try await Task.sleep(for: .seconds(1))
            } while ContinuousClock.now < deadline
            return (answers, sent)
        }
        var sent = codesSent
        let refusedCodes = workload.codeRequests.filter { answers[$0.requestId] != nil && !sent.contains($0.requestId) }.count
        let issued = workload.signIns.filter { id in answers[id.requestId]?.contains { (try? EventCodec.decode($0)).map { if case .tokenIssued = $0 { true } else { false } } ?? false } ?? false }.count
        lines.append("     code requests: \(sent.count) sent, \(refusedCodes) refused (cooldown); sign-ins: \(issued) issued, \(workload.signIns.count - issued) refused")
        let missing = ids.subtracting(answers.keys).sorted()
        check(missing.isEmpty, "every code request and sign-in has an answer (\(answers.count)/\(ids.count)\(missing.isEmpty ? "" : "; missing: \(missing.prefix(5))"))")
        let doubled = answers.filter { $0.value.count > 1 }.map { id, values in
            "\(id): " + values.compactMap { try? EventCodec.decode($0).type }.sorted().joined(separator: "+")
        }
        check(doubled.isEmpty, "no code request or sign-in has two different answers\(doubled.isEmpty ? "" : ": \(doubled.sorted().prefix(5))")")
        let mail = SentMail(directory: sentMail)
        sent.formUnion(workload.registerCodeRequests)
        sent.formUnion(gatewayCodes)
        let unmailed = sent.subtracting(mail.codes.keys).sorted()
        let unanswered = Set(mail.codes.keys).subtracting(sent).sorted()
        check(unmailed.isEmpty && unanswered.isEmpty,
              "every code sent was emailed, and only those (\(mail.codes.count) of \(sent.count)\(unmailed.isEmpty ? "" : "; not emailed: \(unmailed.prefix(5))")\(unanswered.isEmpty ? "" : "; emailed unanswered: \(unanswered.prefix(5))"))")
        check(mail.requestsWithTwoCodes.isEmpty,
              "no request was emailed two different codes (\(mail.count) emails; \(mail.identicalCopies) identical copies resent after an interrupted send\(mail.requestsWithTwoCodes.isEmpty ? "" : "; two codes: \(mail.requestsWithTwoCodes.prefix(5))"))")
    }
}
