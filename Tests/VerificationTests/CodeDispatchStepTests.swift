import Backends
import Courier
import CryptoAdapters
import Domain
import Foundation
import SQLStores
import Synchronization
@testable import TestSupport
import Testing
import Verification

/// The code dispatch step on a real SQLite code store, real secrets and a real outbox, with faults
/// injected around them: a code is recorded before it is mailed, and whatever fails, a retry or a
/// redelivery mails the very same message (same code, same Message-ID) or nothing.
@Suite(.tags(.unit)) final class CodeDispatchStepTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("code-dispatch-\(UUID().uuidString)").path
    let request = Event.codeRequested(CodeRequested(requestId: "r-1", email: "ada@example.com", purpose: .login))
    let now = Date(timeIntervalSince1970: 1_000_000)

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func step(failingStoreCalls: Set<Int> = [], failingSends: Int = 0) throws -> (CodeDispatchStep, FaultyStore, FaultyMailer) {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let store = FaultyStore(try SQLCodeStore(database: SQLiteDatabase(path: directory + "/codes.sqlite")), failing: failingStoreCalls)
        let mailer = FaultyMailer(try FileOutbox(directory: directory + "/outbox"), failing: failingSends)
        let secrets = try HMACCodeSecrets(keyFile: directory + "/codes.key")
        return (CodeDispatchStep(codes: store, secrets: secrets, mailer: mailer, clock: { [now] in now }), store, mailer)
    }

    var sent: Event { .codeSent(CodeSent(requestId: "r-1", purpose: .login, expiresIn: 600)) }

    @Test func aFailedSendIsRetriedWithTheSameMessageAndARedeliverySendsNothing() throws {
        let (step, store, mailer) = try step(failingSends: 1)
        #expect(throws: StoreError.self) { try step.dispatch(request) }
        #expect(try step.dispatch(request) == [sent])
        #expect(try step.dispatch(request) == [sent])
        let attempts = mailer.attempts
        #expect(attempts.count == 2 && attempts[0] == attempts[1], "the retry sends the very same message")
        let record = try #require(try store.record())
        #expect(record.unmailed.isEmpty, "the send is recorded")
        let text = attempts[0].text
        let code = try #require(text.range(of: #"is: [0-9]{6}"#, options: .regularExpression).map { String(text[$0].suffix(6)) })
        let verifier = CodeVerifier(codes: store, secrets: try HMACCodeSecrets(keyFile: directory + "/codes.key"))
        #expect(try verifier.verify(code, email: "ada@example.com", purposes: [.login], requestId: "s-1", at: now) == nil,
                "the code mailed is the code recorded")
        let recovery = try #require(text.range(of: #"instead:\n[A-Z2-7-]{23}"#, options: .regularExpression).map { String(text[$0].suffix(23)) })
        #expect(try verifier.verify(recovery, email: "ada@example.com", purposes: [.login], requestId: "s-1", at: now) == nil,
                "its recovery form too (the same request, again)")
    }

    @Test func theCodeIsMailedInTheRequestsLanguageAndAnInvalidLocaleIsRefused() throws {
        let (step, _, mailer) = try step()
        let chinese = Event.codeRequested(CodeRequested(requestId: "r-zh", email: "ada@example.com", purpose: .resetPassword, locale: "zh-CN, en"))
        #expect(try step.dispatch(chinese) == [.codeSent(CodeSent(requestId: "r-zh", purpose: .resetPassword, expiresIn: 600))])
        let mail = try #require(mailer.attempts.first)
        #expect(mail.subject == "您的Registrar验证码" && mail.text.hasPrefix("您用于重置密码的验证码是：") && mail.html.contains("<html lang=\"zh-Hans\">"))
        let invalid = Event.codeRequested(CodeRequested(requestId: "r-bad", email: "ada@example.com", purpose: .login, locale: "zh_CN"))
        let refused = try step.dispatch(invalid)
        guard case .codeRefused(let refusal)? = refused.first else { Issue.record("\(refused)"); return }
        #expect(refusal.reason == .localeInvalid && mailer.attempts.count == 1)
    }

    @Test func aStoreRefusingTheWriteSendsNothing() throws {
        let (step, _, mailer) = try step(failingStoreCalls: [1])
        #expect(throws: StoreError.self) { try step.dispatch(request) }
        #expect(mailer.attempts.isEmpty)
        #expect(try step.dispatch(request) == [sent])
        #expect(mailer.attempts.count == 1)
    }

    @Test func aSendThatCannotBeRecordedIsAnsweredAndOnlyARedeliveryMailsItAgain() throws {
        let (step, store, mailer) = try step(failingStoreCalls: [3])
        #expect(try step.dispatch(request) == [sent])
        #expect(try store.record()?.unmailed == ["r-1"])
        #expect(try step.dispatch(request) == [sent])
        let attempts = mailer.attempts
        #expect(attempts.count == 2 && attempts[0] == attempts[1])
        #expect(try store.record()?.unmailed == [])
    }
}

/// A code store whose calls numbered in `failing` (from 1) fail as transient, as a read-only database would.
/// A dispatch calls it three times: to record the code, to read it for mailing, to record the send.
final class FaultyStore: CodeStore {
    private let store: any CodeStore
    private let failing: Set<Int>
    private let calls = Atomic(0)

    init(_ store: any CodeStore, failing: Set<Int>) {
        self.store = store
        self.failing = failing
    }

    func update<T: Sendable>(email: String, purpose: CodePurpose,
                             _ body: (inout CodeRecord?) throws(StoreError) -> T) throws(StoreError) -> T {
        let call = calls.add(1, ordering: .sequentiallyConsistent).newValue
        guard !failing.contains(call) else { throw StoreError(.transient, "cannot execute in a read-only transaction") }
        return try store.update(email: email, purpose: purpose, body)
    }

    func forgetCodes(expiredBefore date: Date) throws(StoreError) -> Int {
        try store.forgetCodes(expiredBefore: date)
    }

    /// The record of ada@example.com for signing in, read past the faults.
    func record() throws(StoreError) -> CodeRecord? {
        try store.update(email: "ada@example.com", purpose: .login) { (record) throws(StoreError) in record }
    }
}

/// A mailer that remembers every message it was given and fails the first `failing` as deferred.
final class FaultyMailer: Mailer {
    private let mailer: any Mailer
    private let state: Mutex<(failing: Int, attempts: [EmailMessage])>

    init(_ mailer: any Mailer, failing: Int) {
        self.mailer = mailer
        state = Mutex((failing, []))
    }

    var attempts: [EmailMessage] { state.withLock { $0.attempts } }

    func send(_ message: EmailMessage) throws(StoreError) {
        let fails = state.withLock { state in
            state.attempts.append(message)
            defer { state.failing -= 1 }
            return state.failing > 0
        }
        if fails { throw StoreError(.transient, "451 4.3.0 try again later") }
        try mailer.send(message)
    }
}
