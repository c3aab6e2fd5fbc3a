import AccountChanges
import Registration
import Domain
import Foundation
@testable import TestSupport
import Testing

/// The email change saga: forward, refusal, deadline compensation, redelivery; replies matched by the version of
/// the command they answer.
@Suite(.tags(.unit)) struct EmailChangeSagaTests {
    let now = Date(timeIntervalSince1970: 1_000_000)
    var change: AccountChangeRecord {
        AccountChangeRecord(requestId: "r", uid: "u", kind: .changeEmail, oldEmail: "old@example.com", newEmail: "new@example.com",
                            stage: .awaitingProfile, updatedAt: now, revision: 4)
    }

    func updated(_ email: String, revision: Int = 4) -> Event {
        .profileEmailUpdated(ProfileEmail(requestId: "r", uid: "u", email: email, step: "awaiting_profile", revision: revision))
    }

    @Test func theProfileFollowingCompletesTheChange() throws {
        let transition = EmailChangeSaga.on(updated("new@example.com"), change: change, at: now)
        let completed = try #require(transition.record)
        #expect(completed.stage == .completed && transition.change == nil)
        #expect(EmailChangeSaga.events(of: completed) == [.accountChangeCompleted(AccountChangeCompleted(requestId: "r", change: .changeEmail))])
    }

    @Test func aReplyToAnotherVersionChangesNothing() {
        #expect(EmailChangeSaga.on(updated("new@example.com", revision: 3), change: change, at: now).record == nil)
    }

    @Test func aRefusedProfileGivesTheAccountItsOldEmailBack() throws {
        let rejected = Event.profileEmailRejected(ProfileEmailRejected(requestId: "r", uid: "u", reason: .profileInvalid, message: "m"))
        let transition = EmailChangeSaga.on(rejected, change: change, at: now)
        let failed = try #require(transition.record)
        #expect(failed.stage == .failed && transition.change == AccountUpdate(email: "old@example.com"))
        #expect(EmailChangeSaga.events(of: failed) == [.accountChangeFailed(RequestRefusal(requestId: "r", reason: .profileInvalid, message: "m"))])
    }

    @Test func aDeadlineSetsTheProfileBackBeforeTheAccount() throws {
        let expired = try #require(EmailChangeSaga.expire(change, at: now))
        var compensating = try #require(expired.record)
        #expect(compensating.stage == .compensating && compensating.sendsCommand)
        // The store gives the compensation the account's next revision.
        compensating.revision = 5
        #expect(EmailChangeSaga.events(of: compensating)
            == [.updateProfileEmail(ProfileEmail(requestId: "r", uid: "u", email: "old@example.com", step: "compensating", revision: 5))])
        // A late forward acknowledgement changes nothing; the compensation's acknowledgement fails the change.
        #expect(EmailChangeSaga.on(updated("new@example.com"), change: compensating, at: now).record == nil)
        let undone = EmailChangeSaga.on(updated("old@example.com", revision: 5), change: compensating, at: now)
        #expect(undone.record?.stage == .failed && undone.change == AccountUpdate(email: "old@example.com"))
        #expect(EmailChangeSaga.expire(compensating, at: now) == nil)
    }

    @Test func aRedeliveredReplyChangesNothing() {
        var done = change
        done.stage = .completed
        #expect(EmailChangeSaga.on(updated("new@example.com"), change: done, at: now).record == nil)
    }
}
