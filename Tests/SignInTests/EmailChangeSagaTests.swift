import AccountChanges
import Domain
import Foundation
@testable import TestSupport
import Testing

/// The email change saga: forward, refusal, deadline compensation, redelivery.
@Suite(.tags(.unit)) struct EmailChangeSagaTests {
    let now = Date(timeIntervalSince1970: 1_000_000)
    var change: AccountChangeRecord {
        AccountChangeRecord(requestId: "r", uid: "u", kind: .changeEmail, oldEmail: "old@example.com", newEmail: "new@example.com",
                            stage: .awaitingProfile, updatedAt: now)
    }

    func updated(_ email: String) -> Event { .profileEmailUpdated(ProfileEmail(requestId: "r", uid: "u", email: email)) }

    @Test func theProfileFollowingCompletesTheChange() {
        let transition = EmailChangeSaga.on(updated("new@example.com"), change: change, at: now)
        #expect(transition.record?.stage == .completed && transition.change == nil)
        #expect(transition.events == [.accountChangeCompleted(AccountChangeCompleted(requestId: "r", change: .changeEmail))])
    }

    @Test func aRefusedProfileGivesTheAccountItsOldEmailBack() {
        let rejected = Event.profileEmailRejected(ProfileEmailRejected(requestId: "r", uid: "u", reason: .profileInvalid, message: "m"))
        let transition = EmailChangeSaga.on(rejected, change: change, at: now)
        #expect(transition.record?.stage == .failed && transition.change == .email("old@example.com"))
        #expect(transition.events == [.accountChangeFailed(RequestRefusal(requestId: "r", reason: .profileInvalid, message: "m"))])
    }

    @Test func aDeadlineSetsTheProfileBackBeforeTheAccount() throws {
        let expired = try #require(EmailChangeSaga.expire(change, at: now))
        let compensating = try #require(expired.record)
        #expect(expired.events == [.updateProfileEmail(ProfileEmail(requestId: "r", uid: "u", email: "old@example.com"))])
        // A late forward acknowledgement changes nothing; the compensation's acknowledgement fails the change.
        #expect(EmailChangeSaga.on(updated("new@example.com"), change: compensating, at: now).record == nil)
        let undone = EmailChangeSaga.on(updated("old@example.com"), change: compensating, at: now)
        #expect(undone.record?.stage == .failed && undone.change == .email("old@example.com"))
        #expect(EmailChangeSaga.expire(compensating, at: now) == nil)
    }

    @Test func aRedeliveredReplyRepeatsTheStagesEvents() {
        var done = change
        done.stage = .completed
        let transition = EmailChangeSaga.on(updated("new@example.com"), change: done, at: now)
        #expect(transition.record == nil && transition.events == EmailChangeSaga.events(of: done))
    }
}
