import Domain
import Foundation
import Synchronization
import Testing

/// The side-effect hook point of `SagaEngine`: effects are kept with the move that causes them, once per committed
/// move, and performed from their outbox (`SideEffects`): kept while their performer fails or refuses them, each on its
/// own back-off while the others go on, removed only once performed, never performed twice by one relay, none claimed
/// by another relay, and again (the same key) only by a relay started anew after a crash between the performance and
/// the removal, once the claim of the relay before it ran out.
@Suite(.tags(.unit)) struct SideEffectsTests {
    /// A saga counting up to `done`; its store refuses the next save once `refuseNext` (another writer moved it first).
    struct Count: SagaMove {
        var record: Int?
        var change: Never?
        func events(after saved: Int) -> [Event] { [] }
    }

    final class Log: SagaLog, @unchecked Sendable {
        let state = Mutex<(record: Int, kept: [OutboxMessage], refuseNext: Bool)>((0, [], false))
        func record(_ key: String) throws(StoreError) -> Int? { state.withLock { $0.record } }
        func save(_ record: Int, applying change: Never?, keeping effects: [OutboxMessage]) throws(StoreError) -> Int? {
            state.withLock { state in
                if state.refuseNext {
                    state.refuseNext = false
                    state.record += 1
                    return nil
                }
                state.record = record
                state.kept += effects
                return record
            }
        }
        func waiting() throws(StoreError) -> [Int] { [] }
        func mark(_ record: Int) -> ProgressWatch.Mark { ("k", String(record), "counting") }
    }

    static let event = Event.avatarDeleted(AvatarDeleted(registrationId: "k", imageId: "i"))

    func counting(_ log: Log) -> SagaEngine<Count> {
        SagaEngine(log: log, clock: Date.init, progress: ProgressWatch(), effects: [{ record, _ in
            record == 2 ? [OutboxMessage(topic: "mail", key: "done.k", type: "done", payload: Array("\(record)".utf8))] : []
        }])
    }

    /// Counting up to 2 keeps the effect of the move to 2, once; a redelivered event finding the saga at 2 moves nothing
    /// and keeps nothing; a save lost to another writer keeps nothing, and the move on the fresh record keeps its own.
    @Test func effectsAreKeptOncePerCommittedMove() throws {
        let log = Log()
        let engine = counting(log)
        let step: (Int, Date) -> Count = { record, _ in Count(record: record < 2 ? record + 1 : nil) }
        for _ in 0..<4 { _ = try engine.advance("k", on: Self.event, missing: { StoreError(.permanent, "none") }, step) }
        #expect(log.state.withLock { $0.kept.map(\.key) } == ["done.k"])

        let raced = Log()
        raced.state.withLock { $0 = (1, [], true) }
        _ = try counting(raced).advance("k", on: Self.event, missing: { StoreError(.permanent, "none") }, step)
        #expect(raced.state.withLock { $0.kept.isEmpty && $0.record == 2 }, "the refused save kept its effect")
    }

    final class Outbox: ClaimedOutbox, @unchecked Sendable {
        let state = Mutex<(messages: [OutboxMessage], failRemovals: Int)>(([], 0))
        let claims = Mutex<[Int: (relay: String, expiry: Date)]>([:])
        /// How many claims were tried.
        let attempts = Mutex(0)
        func pending(limit: Int) throws(StoreError) -> [OutboxMessage] { state.withLock { Array($0.messages.prefix(limit)) } }
        func claimable(for relay: String, now: Date, limit: Int) throws(StoreError) -> [OutboxMessage] {
            let messages = state.withLock { $0.messages }
            return Array(claims.withLock { claims in messages.filter { !Self.held(claims[$0.sequence], from: relay, at: now) } }.prefix(limit))
        }
        func claim(_ message: OutboxMessage, for relay: String, until expiry: Date, now: Date) throws(StoreError) -> Bool {
            attempts.withLock { $0 += 1 }
            guard state.withLock({ $0.messages.contains { $0.sequence == message.sequence } }) else { return false }
            return claims.withLock { claims in
                if Self.held(claims[message.sequence], from: relay, at: now) { return false }
                claims[message.sequence] = (relay, expiry)
                return true
            }
        }
        static func held(_ claim: (relay: String, expiry: Date)?, from relay: String, at now: Date) -> Bool {
            claim.map { $0.relay != relay && $0.expiry >= now } ?? false
        }
        func release(_ message: OutboxMessage, for relay: String) throws(StoreError) {
            claims.withLock { claims in if claims[message.sequence]?.relay == relay { claims[message.sequence] = nil } }
        }
        func remove(_ messages: [OutboxMessage]) throws(StoreError) {
            try state.withLock { (state) throws(StoreError) in
                if state.failRemovals > 0 {
                    state.failRemovals -= 1
                    throw StoreError(.transient, "the store is down")
                }
                state.messages.removeAll { kept in messages.contains { $0.sequence == kept.sequence } }
            }
            claims.withLock { claims in for message in messages { claims[message.sequence] = nil } }
        }
    }

    /// What a performer did, and whether it fails (its server down).
    final class Performer: Sendable {
        let sent = Mutex<[String]>([])
        let down = Mutex(false)
        let refusing: String?

        init(refusing: String? = nil) { self.refusing = refusing }

        var performers: [String: @Sendable (OutboxMessage) throws(StoreError) -> Void] {
            ["mail": { [self] (effect) throws(StoreError) in
                if down.withLock({ $0 }) { throw StoreError(.transient, "the mail server is down") }
                if effect.key == refusing { throw StoreError(.permanent, "550 no such user") }
                sent.withLock { $0.append(effect.key) }
            }]
        }
    }

    static func effect(_ sequence: Int, _ key: String, topic: String = "mail") -> OutboxMessage {
        OutboxMessage(sequence: sequence, topic: topic, key: key, type: "welcome", payload: [])
    }

    @Test func aFailingPerformerKeepsItsEffectsInOrderUntilItIsBack() throws {
        let outbox = Outbox()
        outbox.state.withLock { $0.messages = [Self.effect(1, "a"), Self.effect(2, "b")] }
        let performer = Performer()
        performer.down.withLock { $0 = true }
        let effects = SideEffects(outbox: outbox, performers: performer.performers)
        var failed: [String] = []
        #expect(throws: StoreError.self) { try effects.performPending(failed: { effect, _ in failed.append(effect.key) }) }
        #expect(failed == ["a"], "a transient failure before anything was performed ends the round")
        #expect(outbox.state.withLock { $0.messages.count } == 2 && performer.sent.withLock { $0 }.isEmpty)
        performer.down.withLock { $0 = false }
        #expect(try effects.performPending(now: .now + .seconds(2)) == 2)
        #expect(performer.sent.withLock { $0 } == ["a", "b"] && outbox.state.withLock { $0.messages.isEmpty })
    }

    /// A removal that fails after the performance is retried alone: the relay never performs an effect twice. Only a
    /// relay started anew (a crash between the two) performs it again, with the same key, once the claim of the relay
    /// before it ran out.
    @Test func aFailedRemovalIsRetriedWithoutPerformingAgainAndOnlyARestartPerformsAgain() throws {
        let outbox = Outbox()
        outbox.state.withLock { $0 = ([Self.effect(1, "u1")], 2) }
        let performer = Performer()
        let effects = SideEffects(outbox: outbox, performers: performer.performers)
        #expect(throws: StoreError.self) { try effects.performPending() }
        #expect(try effects.performPending() == 0)
        #expect(performer.sent.withLock { $0 } == ["u1"] && outbox.state.withLock { $0.messages.isEmpty })

        outbox.state.withLock { $0 = ([Self.effect(2, "u2")], 2) }
        #expect(throws: StoreError.self) { try effects.performPending() }
        #expect(try SideEffects(outbox: outbox, performers: performer.performers).performPending() == 0,
                "a relay started anew performed what its predecessor's claim still holds")
        try SideEffects(outbox: outbox, performers: performer.performers, clock: { Date() + 301 }).performPending()
        #expect(performer.sent.withLock { $0 } == ["u1", "u2", "u2"] && outbox.state.withLock { $0.messages.isEmpty })
    }

    /// An effect another relay (another replica's) claimed is left to it: not performed, not failed, still kept, until
    /// that claim runs out (its relay stopped); then this relay performs it.
    @Test func anEffectAnotherRelayClaimedIsLeftToItUntilItsClaimRunsOut() throws {
        let outbox = Outbox()
        outbox.state.withLock { $0.messages = [Self.effect(1, "theirs"), Self.effect(2, "free")] }
        let start = Date()
        #expect(try outbox.claim(Self.effect(1, "theirs"), for: "another replica", until: start + 300, now: start))
        let later = Mutex(start)
        let performer = Performer()
        let effects = SideEffects(outbox: outbox, performers: performer.performers, lease: .seconds(300), clock: { later.withLock { $0 } })
        var failed: [String] = []
        #expect(try effects.performPending(failed: { effect, _ in failed.append(effect.key) }) == 1)
        #expect(performer.sent.withLock { $0 } == ["free"] && failed.isEmpty)
        #expect(outbox.state.withLock { $0.messages.map(\.key) } == ["theirs"])
        later.withLock { $0 = start + 301 }
        #expect(try effects.performPending() == 1)
        #expect(performer.sent.withLock { $0 } == ["free", "theirs"] && outbox.state.withLock { $0.messages.isEmpty })
    }

    /// A round reads only the effects no other relay holds: those held hide none behind them (the round reads the
    /// `limit` oldest) and cost no claim attempt.
    @Test func effectsAnotherRelayHoldsHideNoneBehindThemAndCostNoAttempt() throws {
        let outbox = Outbox()
        outbox.state.withLock { $0.messages = [Self.effect(1, "theirs"), Self.effect(2, "theirs too"), Self.effect(3, "free")] }
        let now = Date()
        for sequence in [1, 2] { #expect(try outbox.claim(Self.effect(sequence, ""), for: "another replica", until: now + 300, now: now)) }
        outbox.attempts.withLock { $0 = 0 }
        let performer = Performer()
        #expect(try SideEffects(outbox: outbox, performers: performer.performers, clock: { now }).performPending(limit: 2) == 1)
        #expect(performer.sent.withLock { $0 } == ["free"] && outbox.attempts.withLock { $0 } == 1)
    }

    /// A failed effect that another relay holds for a while (it is trying it too) keeps its back-off here: when it comes
    /// back, released by a failing relay, it waits out the rest of its back-off instead of being tried at once.
    @Test func aFailedEffectAnotherRelayHeldForAWhileKeepsItsBackOff() throws {
        let outbox = Outbox()
        let effect = Self.effect(1, "a")
        outbox.state.withLock { $0.messages = [effect] }
        let performer = Performer()
        performer.down.withLock { $0 = true }
        let effects = SideEffects(outbox: outbox, performers: performer.performers)
        let start = ContinuousClock.now
        #expect(throws: StoreError.self) { try effects.performPending(now: start) }
        performer.down.withLock { $0 = false }
        #expect(try outbox.claim(effect, for: "another replica", until: Date() + 300, now: Date()))
        #expect(try effects.performPending(now: start + .milliseconds(250)) == 0, "held by the other relay")
        try outbox.release(effect, for: "another replica")
        #expect(try effects.performPending(now: start + .milliseconds(500)) == 0, "tried before its 1-second back-off ran out")
        #expect(performer.sent.withLock { $0 }.isEmpty)
        #expect(try effects.performPending(now: start + .seconds(60)) == 1)
    }

    /// Each effect is removed as soon as it is performed, before the next is performed: a claim need only outlast one
    /// performance, however many effects a round performs.
    @Test func eachEffectIsRemovedOnceItIsPerformedBeforeTheNext() throws {
        let outbox = Outbox()
        outbox.state.withLock { $0.messages = [Self.effect(1, "a"), Self.effect(2, "b"), Self.effect(3, "c")] }
        let keptWhenPerformed = Mutex<[[String]]>([])
        let effects = SideEffects(outbox: outbox, performers: ["mail": { _ in
            keptWhenPerformed.withLock { $0.append(outbox.state.withLock { $0.messages.map(\.key) }) }
        }])
        #expect(try effects.performPending() == 3)
        #expect(keptWhenPerformed.withLock { $0 } == [["a", "b", "c"], ["b", "c"], ["c"]])
    }

    /// An effect refused (a mailbox that does not take the mail, a topic without a performer) stays kept and waits its
    /// own back-off while the others are performed; it is tried again once due, never dropped.
    @Test func anEffectThatFailsStaysKeptOnItsOwnBackOffWhileTheOthersGoOn() throws {
        let outbox = Outbox()
        outbox.state.withLock { $0.messages = [Self.effect(1, "refused"), Self.effect(2, "nobody", topic: "sms"), Self.effect(3, "sent")] }
        let performer = Performer(refusing: "refused")
        let effects = SideEffects(outbox: outbox, performers: performer.performers)
        var failed: [String] = []
        #expect(try effects.performPending(failed: { effect, _ in failed.append(effect.key) }) == 1)
        #expect(failed == ["refused", "nobody"] && performer.sent.withLock { $0 } == ["sent"])
        #expect(outbox.state.withLock { $0.messages.map(\.key) } == ["refused", "nobody"])
        #expect(outbox.claims.withLock { $0.isEmpty }, "a failed effect stayed claimed, held from the other relays")
        #expect(try effects.performPending(failed: { effect, _ in failed.append(effect.key) }) == 0)
        #expect(failed.count == 2, "tried again before its back-off ended")
        #expect(throws: StoreError.self) { try effects.performPending(now: .now + .seconds(2), failed: { effect, _ in failed.append(effect.key) }) }
        #expect(failed.count == 4 && outbox.state.withLock { $0.messages.count } == 2)
    }
}
