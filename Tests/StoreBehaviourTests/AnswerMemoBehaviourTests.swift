import Backends
import Domain
import Foundation
import SQLStores
import Synchronization
@testable import TestSupport
import Testing

/// A request is answered once: a redelivered request, or a step that would answer differently the
/// second time (new tokens, a cooldown refusal), republishes the first answer verbatim; checked on
/// the memo of each implementation, which lives in the account database.
@Suite(.tags(.production)) struct AnswerMemoBehaviourTests {
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

    @Test(arguments: StoreBackend.databases)
    func aRedeliveredRequestGetsItsFirstAnswerAgain(backend: StoreBackend) throws {
        try backend.withNewLocation { (url) throws in
            let step = FickleStep()
            let handler = AnswerOnce(step, memo: try answerMemo(at: url, of: "worker"))
            let request = Event.codeRequested(CodeRequested(requestId: "req-1", email: "a@example.com", purpose: .login))
            let first = try handler.handle(request)
            let again = try handler.handle(request)
            #expect(first == again)
            #expect(step.runs.withLock { $0 } == 1, "the step does not run again for an answered request")
            let other = try handler.handle(.codeRequested(CodeRequested(requestId: "req-2", email: "a@example.com", purpose: .login)))
            #expect(other != first)
        }
    }

    /// Several memos on one location stand for several replicas of one worker.
    @Test(arguments: StoreBackend.databases)
    func theFirstKeptAnswerWinsAcrossMemos(backend: StoreBackend) throws {
        try backend.withNewLocation { (url) throws in
            let one = try answerMemo(at: url, of: "worker")
            let two = try answerMemo(at: url, of: "worker")
            #expect(try one.keep(Array("first".utf8), for: key("r")) == nil, "kept")
            #expect(try two.keep(Array("second".utf8), for: key("r")) == Array("first".utf8), "the first kept before")
            #expect(try two.answer(to: key("r")) == Array("first".utf8))
            #expect(try one.answer(to: key("unknown")) == nil)
        }
    }

    @Test(arguments: StoreBackend.databases)
    func concurrentKeepersAllGetTheOneKeptAnswer(backend: StoreBackend) throws {
        try backend.withNewLocation { (url) throws in
            let memos = try (0..<2).map { _ in try answerMemo(at: url, of: "worker") }
            let kept = Mutex<[[UInt8]]>([])
            onThreads(8) { index in
                let answer = Array("answer \(index)".utf8)
                if let given = try? memos[index % 2].keep(answer, for: key("r")) ?? answer {
                    kept.withLock { $0.append(given) }
                }
            }
            let answers = kept.withLock { $0 }
            #expect(answers.count == 8)
            #expect(Set(answers).count == 1)
            #expect(try memos[0].answer(to: key("r")) == answers.first)
        }
    }

    /// Each worker has answers of its own, kept side by side in one account database.
    @Test(arguments: StoreBackend.databases)
    func workersKeepTheirAnswersApart(backend: StoreBackend) throws {
        try backend.withNewLocation { (url) throws in
            let accounts = try answerMemo(at: url, of: "account-worker")
            let codes = try answerMemo(at: url, of: "code-dispatch-worker")
            _ = try accounts.keep(Array("signed in".utf8), for: key("r"))
            #expect(try codes.answer(to: key("r")) == nil)
            #expect(try codes.keep(Array("code sent".utf8), for: key("r")) == nil)
        }
    }

    /// One id on two request topics is two requests, each with its own answer.
    @Test(arguments: StoreBackend.databases)
    func anIdOnAnotherTopicIsAnotherRequest(backend: StoreBackend) throws {
        try backend.withNewLocation { (url) throws in
            let memo = try answerMemo(at: url, of: "account-worker")
            #expect(try memo.keep(Array("signed in".utf8), for: key("r", on: Topic.authRequests)) == nil)
            #expect(try memo.answer(to: key("r", on: Topic.accountRequests)) == nil)
            #expect(try memo.keep(Array("changed".utf8), for: key("r", on: Topic.accountRequests)) == nil)
            #expect(try memo.answer(to: key("r", on: Topic.authRequests)) == Array("signed in".utf8))
        }
    }

    /// The sweep forgets a worker's answers older than their retention, and only those.
    @Test(arguments: StoreBackend.databases)
    func answersOlderThanTheRetentionAreForgotten(backend: StoreBackend) throws {
        try backend.withNewLocation { (url) throws in
            let start = Date(timeIntervalSince1970: 1_800_000_000)
            let now = Mutex(start)
            let memo = try answerMemo(at: url, of: "worker", clock: { now.withLock { $0 } })
            let other = try answerMemo(at: url, of: "other-worker", clock: { start })
            _ = try memo.keep(Array("old".utf8), for: key("old"))
            _ = try other.keep(Array("other".utf8), for: key("old"))
            now.withLock { $0 = start.addingTimeInterval(6 * 86400) }
            _ = try memo.keep(Array("recent".utf8), for: key("recent"))
            #expect(try memo.forget(answeredBefore: start.addingTimeInterval(86400)) == 1)
            #expect(try memo.answer(to: key("old")) == nil)
            #expect(try memo.answer(to: key("recent")) == Array("recent".utf8))
            #expect(try other.answer(to: key("old")) == Array("other".utf8), "another worker's answers are its own sweep's")
        }
    }

    /// The memo shares the account database with the account store, in either order of opening.
    @Test(arguments: StoreBackend.databases)
    func theMemoLivesInTheAccountDatabase(backend: StoreBackend) throws {
        try backend.withNewLocation { (url) throws in
            let memo = try answerMemo(at: url, of: "worker")
            let store = try BackendOptions.accountStore(at: url)
            let saga = sagaRecord("r1")
            #expect(try store.start(saga, account: pendingAccount(for: saga)) == .started)
            _ = try memo.keep(Array("answer".utf8), for: key("r1"))
            #expect(try answerMemo(at: url, of: "worker").answer(to: key("r1")) == Array("answer".utf8))
        }
    }
}

/// Request `id` on `topic` (by default `code.requests`).
private func key(_ id: String, on topic: String = Topic.codeRequests) -> AnswerKey { AnswerKey(topic: topic, id: id) }

/// The answer memo of `worker` in the account database at `url`, as a worker opens it from `--accounts`.
private func answerMemo(at url: String, of worker: String, clock: @escaping @Sendable () -> Date = Date.init) throws -> any AnswerMemo {
    try BackendOptions(accounts: url, dataDirectory: "/nonexistent").answerMemo(of: worker, clock: clock)
}
