import Domain
import Foundation
import RegistrarClient
@testable import TestSupport
import Testing

/// The welcome mail, a side effect of the registration saga's move that completes it: kept with that move in the account
/// database's side-effect outbox, in its transaction, and mailed from there after the commit by the account worker's
/// relay. One for a completed registration, addressed to its account, none for a refused one; none more for a
/// redelivered reply; none lost to a mail outage or a crash after the commit, which hold up no registration.
/// On the production stores the mail server is a real SMTP server (aiosmtpd), which defers every recipient while down.
@Suite(.tags(.kafkaFree)) struct WelcomeMailTests {
    @Test func aCompletedRegistrationIsWelcomedAndARefusedOneIsNot() async throws {
        try await KafkaFreeSystem.with { system in
            let ada = try await system.request(email: "Ada@Example.com", name: "Ada")
            try await system.publish([ada])
            guard case .registrationCompleted = try await system.waitForOutcomes([ada.registrationId])[ada.registrationId]?.first else {
                Issue.record("the registration did not complete"); return
            }
            let taken = try await system.request(email: "ada@example.com", name: "Not Ada")
            try await system.publish([taken])
            guard case .registrationFailed = try await system.waitForOutcomes([taken.registrationId])[taken.registrationId]?.first else {
                Issue.record("the second registration of the address was not refused"); return
            }
            let mail = try system.email(kind: "welcome", requestId: ada.registrationId)
            let lines = mail.split(whereSeparator: \.isNewline)
            #expect(lines.contains("To: ada@example.com") && lines.contains("Subject: Welcome to Registrar, Ada"), "\(mail)")
            #expect(try system.emails(kind: "welcome").count == 1, "none for the refused registration")
            #expect(try system.keptEffects().isEmpty, "the welcome was sent and removed from the outbox")
        }
    }

    /// The profile worker's reply that completed the saga, delivered again (a crash before its commit), finds the saga
    /// past it: it moves nothing, so it keeps no second welcome and nothing more is mailed.
    @Test func aRedeliveredCompletingReplyKeepsAndMailsNothingMore() async throws {
        try await KafkaFreeSystem.with { system in
            let ada = try await system.request(email: "ada@example.com", name: "Ada")
            try await system.publish([ada])
            guard let completing = system.published.last(where: { $0.kind == .profileWritten && $0.registrationId == ada.registrationId }) else {
                Issue.record("no ProfileWritten for the registration"); return
            }
            #expect(try system.emails(kind: "welcome").count == 1)
            system.holdEffects(true)
            try await system.publish(completing)
            #expect(try system.keptEffects().isEmpty, "the redelivered reply kept a second welcome")
            system.holdEffects(false)
            try await system.publish(completing)
            #expect(try system.emails(kind: "welcome").count == 1, "the redelivered reply mailed again")
            let outcomes = try await system.waitForOutcomes([ada.registrationId])[ada.registrationId] ?? []
            #expect(outcomes.allSatisfy { if case .registrationCompleted = $0 { true } else { false } }, "\(outcomes)")
        }
    }

    /// While the mail server fails, a registration completes as it would (its outcome does not wait for the mail) and
    /// its welcome stays kept; once the server is back, the relay mails it, once.
    @Test func aMailOutageDelaysNoRegistrationAndTheWelcomeFollowsOnceMailIsBack() async throws {
        try await KafkaFreeSystem.with { system in
            let ada = try await system.request(email: "ada@example.com", name: "Ada")
            try system.setMailDown(true)
            let started = ContinuousClock.now
            try await system.publish([ada])
            guard case .registrationCompleted = try await system.waitForOutcomes([ada.registrationId])[ada.registrationId]?.first else {
                try system.setMailDown(false)
                Issue.record("the registration did not complete while mail was down: \(system.refused)"); return
            }
            #expect(ContinuousClock.now - started < .seconds(30), "the outcome waited for the mail server")
            try system.performEffects()
            #expect(try system.emails(kind: "welcome").isEmpty)
            #expect(try system.keptEffects().map(\.type) == ["welcome"], "the welcome is kept meanwhile")
            try system.setMailDown(false)
            try system.performEffects()
            #expect(try system.emails(kind: "welcome").count == 1)
            #expect(try system.keptEffects().isEmpty)
            try system.performEffects()
            #expect(try system.emails(kind: "welcome").count == 1, "mailed once")
        }
    }

    /// A worker stopped after the commit that completed the saga and before its relay ran: the welcome is kept, and a
    /// relay started anew mails it, once.
    @Test func aCrashBetweenTheCommitAndTheSendStillMailsTheWelcomeOnce() async throws {
        try await KafkaFreeSystem.with { system in
            let ada = try await system.request(email: "ada@example.com", name: "Ada")
            system.holdEffects(true)
            try await system.publish([ada])
            guard case .registrationCompleted = try await system.waitForOutcomes([ada.registrationId])[ada.registrationId]?.first else {
                Issue.record("the registration did not complete"); return
            }
            #expect(try system.emails(kind: "welcome").isEmpty)
            #expect(try system.keptEffects().count == 1)
            try system.performEffects(anew: true)
            _ = try system.email(kind: "welcome", requestId: ada.registrationId)
            try system.performEffects(anew: true)
            system.holdEffects(false)
            try await system.sweep()
            #expect(try system.emails(kind: "welcome").count == 1, "mailed once")
            #expect(try system.keptEffects().isEmpty)
        }
    }

    /// An account deleted while its welcome is still kept (its relay held, as while the mail server is down): the
    /// erasure removes the kept welcome with everything else naming the account, and the erased address is mailed nothing.
    @Test func anAccountErasedBeforeItsWelcomeWentOutIsNotMailedIt() async throws {
        try await KafkaFreeSystem.with { system in
            let (email, password) = ("leaver@example.com", "deleter quartz lantern 42")
            system.holdEffects(true)
            _ = try await system.register(email, password: password)
            #expect(try system.keptEffects().map(\.type) == ["welcome"])
            let tokens = try #require(try await system.signIn(.password, email: email, secret: password).1)
            let request = system.sealing.deletion(accessToken: tokens.accessToken, proof: .password(password))
            #expect(try await system.send(.accountDeletionRequested(request)) == .accountDeleted(AccountDeleted(requestId: request.requestId)))
            #expect(try system.keptEffects().isEmpty, "the erasure left the welcome kept")
            system.holdEffects(false)
            try system.performEffects()
            #expect(try system.emails(kind: "welcome").isEmpty)
        }
    }
}
