import Domain
import Synchronization
@testable import TestSupport
import Testing

/// A dead-lettered request's failure is its answer once and for all: kept in the answer memo, so that
/// a replay of the request is answered the same, and never given over an answer given already.
@Suite(.tags(.unit)) struct AnswerOnceDeadLetterTests {
    static let request = Event.tokenRequested(TokenRequested(requestId: "req-1", grantType: .password, email: "a@example.com",
                                                             sealedCredential: "c2VhbGVk", replyKey: "cmVwbHk="))
    static let failure = RequestFailure.outcome(ofRequestOn: Topic.authRequests, id: "req-1", message: "dead-lettered (test)")!

    @Test func theFailureIsKeptAndAReplayIsAnsweredTheSame() throws {
        let step = AnswerOnce(Issuing(), memo: Memo())
        #expect(try step.answer(deadLettered: Self.failure) == [Self.failure])
        #expect(try step.handle(Self.request) == [Self.failure], "the replayed request gets the same failure, no token")
    }

    @Test func aRequestAnsweredAlreadyKeepsItsAnswer() throws {
        let step = AnswerOnce(Issuing(), memo: Memo())
        let issued = try step.handle(Self.request)
        #expect(try step.answer(deadLettered: Self.failure) == issued)
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

    final class Memo: AnswerMemo {
        private let answers = Mutex<[String: [UInt8]]>([:])

        func answer(to requestId: String) throws(StoreError) -> [UInt8]? { answers.withLock { $0[requestId] } }

        func keep(_ answer: [UInt8], for requestId: String) throws(StoreError) -> [UInt8]? {
            answers.withLock { answers in
                if let kept = answers[requestId] { return kept }
                answers[requestId] = answer
                return nil
            }
        }

        func atomically<T: Sendable>(_ work: () throws -> T) throws -> T { try work() }
    }
}
