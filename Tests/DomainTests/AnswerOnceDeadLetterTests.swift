import Domain
import Foundation
@testable import TestSupport
import Testing

/// A dead-lettered request's failure is its answer once and for all: kept in the answer memo, so that
/// a replay of the request is answered the same, and never given over an answer given already.
@Suite(.tags(.unit)) struct AnswerOnceDeadLetterTests {
    static let request = Event.tokenRequested(TokenRequested(requestId: "req-1", grantType: .password, email: "a@example.com",
                                                             sealedCredential: "c2VhbGVk", replyKey: "cmVwbHk="))
    static let failure = RequestFailure.outcome(ofRequestOn: Topic.authRequests, id: "req-1", message: "dead-lettered (test)")!

    @Test func theFailureIsKeptAndAReplayIsAnsweredTheSame() throws {
        let step = AnswerOnce(Issuing(), memo: TemporaryAnswerMemo())
        #expect(try step.answer(deadLettered: Self.failure) == [Self.failure])
        #expect(try step.handle(Self.request) == [Self.failure], "the replayed request gets the same failure, no token")
    }

    @Test func aRequestAnsweredAlreadyKeepsItsAnswer() throws {
        let step = AnswerOnce(Issuing(), memo: TemporaryAnswerMemo())
        let issued = try step.handle(Self.request)
        #expect(try step.answer(deadLettered: Self.failure) == issued)
    }

    /// The memo is keyed by the request's topic and id: an id answered on `auth.requests` reused on
    /// `account.requests` is another request, given its own answer on its own outcome topic.
    @Test func anIdReusedOnAnotherFlowGetsItsOwnAnswer() throws {
        let memo = TemporaryAnswerMemo()
        _ = try AnswerOnce(Issuing(), memo: memo).handle(Self.request)
        let change = Event.passwordChangeRequested(PasswordChangeRequested(requestId: "req-1", email: "a@example.com", sealedPassword: "cA==",
                                                                           sealedNewPassword: "bg==", replyKey: "cmVwbHk="))
        let answered = try AnswerOnce(Changing(), memo: memo).handle(change)
        #expect(answered == [.accountChangeCompleted(AccountChangeCompleted(requestId: "req-1", change: .changePassword))])
        #expect(answered.map(\.topic) == [Topic.accountOutcomes])
    }

    @Test func aStepWithoutAMemoAnswersWithTheFailure() throws {
        #expect(try Issuing().answer(deadLettered: Self.failure) == [Self.failure])
    }

    /// Answers every token request with a token.
    struct Issuing: EventHandler {
        static let routes: Set<Route> = [Route(.tokenRequested, on: Topic.authRequests)]

        func handle(_ event: Event) throws -> [Event] {
            [.tokenIssued(TokenIssued(requestId: event.key, sealedTokens: "c2VhbGVk", expiresIn: 900, accountCreated: false))]
        }
    }

    /// Completes every password change.
    struct Changing: EventHandler {
        static let routes: Set<Route> = [Route(.passwordChangeRequested, on: Topic.accountRequests)]

        func handle(_ event: Event) throws -> [Event] {
            [.accountChangeCompleted(AccountChangeCompleted(requestId: event.key, change: .changePassword))]
        }
    }
}
