import Domain
import EmbeddedStores
import Foundation
import StoreTesting
import Synchronization
import Testing

/// A request is answered once: a redelivered request, or a step that would answer differently the
/// second time (new tokens, a cooldown refusal), republishes the first answer verbatim.
@Suite struct AnswerOnceTests {
    /// Answers every code request with a new, different answer, as a step re-run after a crash might.
    final class FickleStep: EventHandler, Sendable {
        static let routes = Route.set([Topic.codeRequests: [.codeRequested]])
        let runs = Mutex(0)
        func handle(_ event: Event) throws -> [Event] {
            let run = runs.withLock { runs in
                runs += 1
                return runs
            }
            return [.codeSent(CodeSent(requestId: event.key, purpose: .login, expiresIn: run))]
        }
    }

    @Test func aRedeliveredRequestGetsItsFirstAnswerAgain() throws {
        try withTemporaryDirectory { directory in
            let step = FickleStep()
            let handler = AnswerOnce(step, memo: try SQLiteAnswerMemo(path: directory + "/answers.sqlite"))
            let request = Event.codeRequested(CodeRequested(requestId: "req-1", email: "a@example.com", purpose: .login))
            let first = try handler.handle(request)
            let again = try handler.handle(request)
            #expect(first == again)
            #expect(step.runs.withLock { $0 } == 1, "the step does not run again for an answered request")
            let other = try handler.handle(.codeRequested(CodeRequested(requestId: "req-2", email: "a@example.com", purpose: .login)))
            #expect(other != first)
        }
    }

    @Test func theFirstKeptAnswerWinsAcrossStores() throws {
        try withTemporaryDirectory { directory in
            let one = try SQLiteAnswerMemo(path: directory + "/answers.sqlite")
            let two = try SQLiteAnswerMemo(path: directory + "/answers.sqlite")
            #expect(try one.keep(Array("first".utf8), for: "r") == Array("first".utf8))
            #expect(try two.keep(Array("second".utf8), for: "r") == Array("first".utf8))
            #expect(try two.answer(to: "r") == Array("first".utf8))
            #expect(try one.answer(to: "unknown") == nil)
        }
    }
}
