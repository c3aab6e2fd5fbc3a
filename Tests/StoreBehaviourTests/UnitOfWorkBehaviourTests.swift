import Backends
import Domain
import Foundation
import Registration
import SignIn
import SQLStores
@testable import TestSupport
import Testing
import Verification

/// A step's writes and its answer commit together (`AnswerMemo.atomically`), on each implementation:
/// a failure anywhere inside, the memo's own write included, leaves neither, and a run that finds its
/// request answered meanwhile is undone whole.
@Suite(.tags(.production)) struct UnitOfWorkBehaviourTests {
    struct Refused: Error {}

    /// Starts a registration under the request's id (a write in the account database) and answers the
    /// request, running `before` first: it stands for any step of the account worker.
    struct Registering: EventHandler {
        static let routes = Route.set([Topic.codeRequests: [.codeRequested]])
        let accounts: any AccountStore
        var before: @Sendable () throws -> Void = {}

        func handle(_ event: Event) throws -> [Event] {
            try before()
            let saga = sagaRecord(event.key)
            _ = try accounts.start(saga, account: pendingAccount(for: saga))
            return [codeSent(event.key, expiresIn: 600)]
        }
    }

    static let request = Event.codeRequested(CodeRequested(requestId: "req-1", email: "ada@example.com", purpose: .login))

    @Test(arguments: StoreBackend.databases)
    func theWritesAndTheAnswerCommitTogether(backend: StoreBackend) throws {
        try backend.withNewLocation { (url) throws in
            let (memo, accounts) = try stores(at: url)
            try memo.atomically {
                _ = try accounts.start(sagaRecord("r1"), account: pendingAccount(for: sagaRecord("r1")))
                #expect(try accounts.saga("r1") != nil, "the unit reads its own writes")
                #expect(try memo.keep(Array("answer".utf8), for: codeRequest("r1")) == nil)
            }
            #expect(try accounts.saga("r1") != nil)
            #expect(try memo.answer(to: codeRequest("r1")) == Array("answer".utf8))
        }
    }

    @Test(arguments: StoreBackend.databases)
    func aFailureInsideRollsBackTheWritesAndTheAnswer(backend: StoreBackend) throws {
        try backend.withNewLocation { (url) throws in
            let (memo, accounts) = try stores(at: url)
            #expect(throws: Refused.self) {
                try memo.atomically {
                    _ = try accounts.start(sagaRecord("r1"), account: pendingAccount(for: sagaRecord("r1")))
                    _ = try memo.keep(Array("answer".utf8), for: codeRequest("r1"))
                    throw Refused()
                }
            }
            try expectNothing(for: "r1", in: accounts, memo)
        }
    }

    /// The crash "after the step's commit, before the memo's" cannot happen: when the memo's write
    /// fails, the step's write is undone with it, and the request is not answered.
    @Test(arguments: StoreBackend.databases)
    func aMemoWriteThatFailsRollsTheStepsWritesBack(backend: StoreBackend) throws {
        try backend.withNewLocation { (url) throws in
            let (memo, accounts) = try stores(at: url)
            try backend.refuseAnswers(at: url)
            let handler = AnswerOnce(Registering(accounts: accounts), memo: memo)
            #expect(throws: StoreError.self) { try handler.handle(Self.request) }
            try expectNothing(for: "req-1", in: accounts, memo)
        }
    }

    /// A replica answered the request after this run found no answer: this run's writes are undone
    /// and it gives the replica's answer.
    @Test(arguments: StoreBackend.databases)
    func aRunThatFindsItsRequestAnsweredMeanwhileIsUndoneAndGivesThatAnswer(backend: StoreBackend) throws {
        try backend.withNewLocation { (url) throws in
            let (memo, accounts) = try stores(at: url)
            let replica = try BackendOptions(accounts: url, dataDirectory: "/nonexistent").answerMemo(of: "worker")
            let replicasAnswer = EventCodec.encode(codeSent("req-1", expiresIn: 570))
            // On a thread of its own, as a replica's run is not in this one's unit of work.
            let step = Registering(accounts: accounts, before: { onThreads(1) { _ in _ = try? replica.keep(replicasAnswer, for: codeRequest("req-1")) } })
            let answers = try AnswerOnce(step, memo: memo).handle(Self.request)
            #expect(answers.map(EventCodec.encode) == [replicasAnswer])
            #expect(try memo.answer(to: codeRequest("req-1")) == replicasAnswer)
            #expect(try accounts.saga("req-1") == nil, "this run's write is undone")
        }
    }

    /// A store transaction that fails inside the unit undoes its own writes only, as it would alone.
    @Test(arguments: StoreBackend.databases)
    func aFailedStoreTransactionInsideUndoesOnlyItsOwnWrites(backend: StoreBackend) throws {
        try backend.withNewLocation { (url) throws in
            let (memo, accounts) = try stores(at: url)
            try memo.atomically {
                _ = try accounts.start(sagaRecord("r1"), account: pendingAccount(for: sagaRecord("r1")))
                // Saves the saga, then fails: there is no account to activate.
                #expect(throws: StoreError.self) { try accounts.save(sagaRecord("r1").next(.completed), applying: .activate(uid: "nobody")) }
                _ = try memo.keep(Array("answer".utf8), for: codeRequest("r1"))
            }
            #expect(try accounts.saga("r1")?.stage == .awaitingAvatar, "the failed save is undone")
            #expect(try memo.answer(to: codeRequest("r1")) == Array("answer".utf8))
        }
    }

    /// The code and token stores are in the account database (on SQLite, the embedded defaults of a
    /// data directory): a code used and a token rotated inside the unit roll back with its answer.
    @Test(arguments: StoreBackend.databases)
    func aCodeUsedAndATokenRotatedRollBackWithTheAnswer(backend: StoreBackend) throws {
        try backend.withWorkerStores { (options) throws in
            let (memo, codes, tokens) = (try options.answerMemo(of: "worker"), try options.codeStore(), try options.tokenStore())
            try codes.update(email: "ada@example.com", purpose: .login) { (record) throws(StoreError) in record = issuedCode }
            try tokens.store(refreshToken("d1", issuedBy: "q0"))
            #expect(throws: Refused.self) {
                try memo.atomically {
                    try codes.update(email: "ada@example.com", purpose: .login) { (record) throws(StoreError) in record?.usedBy = "req-1" }
                    #expect(try rotate("d1", to: "d2", in: tokens) == .rotate)
                    _ = try memo.keep(Array("answer".utf8), for: codeRequest("req-1"))
                    throw Refused()
                }
            }
            #expect(try codes.update(email: "ada@example.com", purpose: .login) { (record) throws(StoreError) in record } == issuedCode)
            #expect(try tokens.token(digest: "d1")?.replacedBy == nil && tokens.token(digest: "d2") == nil)
            #expect(try memo.answer(to: codeRequest("req-1")) == nil)
            // And they commit with it.
            try memo.atomically {
                try codes.update(email: "ada@example.com", purpose: .login) { (record) throws(StoreError) in record?.usedBy = "req-1" }
                #expect(try rotate("d1", to: "d2", in: tokens) == .rotate)
                _ = try memo.keep(Array("answer".utf8), for: codeRequest("req-1"))
            }
            #expect(try codes.update(email: "ada@example.com", purpose: .login) { (record) throws(StoreError) in record?.usedBy } == "req-1")
            #expect(try tokens.token(digest: "d1")?.replacedBy == "req-1" && tokens.token(digest: "d2") != nil)
            #expect(try memo.answer(to: codeRequest("req-1")) == Array("answer".utf8))
        }
    }

    /// Rotates the token `digest` into `next` for the request `req-1`, as the sign-in step decides.
    private func rotate(_ digest: String, to next: String, in tokens: any TokenStore) throws -> RotationDecision {
        try tokens.rotate(digest: digest, to: refreshToken(next, issuedBy: "req-1"), replyKey: "client-1") {
            RotationDecision.on($0, requestId: "req-1", replyKey: "client-1", at: startDate)
        }
    }

    /// Expects that neither the registration `id` nor an answer to the request `id` is kept.
    private func expectNothing(for id: String, in accounts: any AccountStore, _ memo: any AnswerMemo,
                               sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try accounts.saga(id) == nil && accounts.account(uid: "uid-\(id)") == nil, sourceLocation: sourceLocation)
        #expect(try memo.answer(to: codeRequest(id)) == nil, sourceLocation: sourceLocation)
    }

    private func stores(at url: String) throws -> (any AnswerMemo, any AccountStore) {
        (try BackendOptions(accounts: url, dataDirectory: "/nonexistent").answerMemo(of: "worker"), try BackendOptions.accountStore(at: url))
    }
}

/// The code request `requestId`, as the memo knows it.
private func codeRequest(_ requestId: String) -> AnswerKey { AnswerKey(topic: Topic.codeRequests, id: requestId) }

/// The answer to the code request `requestId`.
private func codeSent(_ requestId: String, expiresIn: Int) -> Event {
    .codeSent(CodeSent(requestId: requestId, purpose: .login, expiresIn: expiresIn))
}

/// A code issued to ada@example.com for signing in, not used yet.
private let issuedCode = CodeRecord(email: "ada@example.com", purpose: .login, digest: String(repeating: "ab", count: 32),
                                    issuedBy: "r1", expiresAt: startDate.addingTimeInterval(600), sentAt: [startDate])

private func refreshToken(_ digest: String, issuedBy: String) -> RefreshToken {
    RefreshToken(digest: digest, family: "f1", uid: "uid-1", issuedBy: issuedBy, issuedAt: startDate,
                 expiresAt: startDate.addingTimeInterval(86_400))
}
