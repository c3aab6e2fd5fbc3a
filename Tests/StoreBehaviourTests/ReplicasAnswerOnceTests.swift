import Backends
import Courier
import CryptoAdapters
import Domain
import Foundation
import SMTPCourier
import SQLStores
import Synchronization
@testable import TestSupport
import Testing
import Verification

/// Two replicas of the code dispatch worker on two hosts (separate data directories, so separate
/// keys and outboxes) on one PostgreSQL database answer a redelivered request once, identically:
/// the answer memo is in the shared account database, not on either host.
@Suite(.tags(.production)) struct ReplicasAnswerOnceTests {
    /// Counts the events the step it wraps handles.
    final class Counting<Step: EventHandler>: EventHandler, Sendable {
        static var routes: Set<Route> { Step.routes }
        let step: Step
        let runs = Mutex(0)

        init(_ step: Step) {
            self.step = step
        }

        func handle(_ event: Event) throws -> [Event] {
            runs.withLock { $0 += 1 }
            return try step.handle(event)
        }
    }

    @Test func aRedeliveryToTheOtherReplicaGetsTheFirstAnswerByteForByte() throws {
        let url = try PostgresServer.shared().newDatabase()
        try withTemporaryDirectory { hostA in
            try withTemporaryDirectory { hostB in
                let now = Date()
                // The second replica sees the request 30 s later: re-run, its step would answer with
                // a shorter validity.
                let (first, firstSteps) = try Self.replica(accounts: url, dataDirectory: hostA, clock: { now })
                let (second, secondSteps) = try Self.replica(accounts: url, dataDirectory: hostB, clock: { now + 30 })
                let request = Event.codeRequested(CodeRequested(requestId: "req-1", email: "ada@example.com", purpose: .login))

                let answer = try first.handle(request).map(EventCodec.encode)
                let redelivered = try second.handle(request).map(EventCodec.encode)

                #expect(answer.count == 1)
                #expect(redelivered == answer, "the same bytes")
                #expect(firstSteps.runs.withLock { $0 } == 1)
                #expect(secondSteps.runs.withLock { $0 } == 0, "the second replica's step does not run")
                let mailed = try [hostA, hostB].flatMap { try FileManager.default.contentsOfDirectory(atPath: "\($0)/outbox") }
                #expect(mailed.count == 1, "one code mailed")
            }
        }
    }

    /// The first replica commits the code with its answer, then its mail server refuses the mail for
    /// now; the redelivery, on the other replica, finds the answer, mails the very same code once and
    /// gives the kept answer.
    @Test func aMailThatFailedAfterTheCommitIsSentOnceByTheReplicaThatFindsTheAnswer() throws {
        let url = try PostgresServer.shared().newDatabase()
        try withTemporaryDirectory { root in
            // The operator's one code secret, on both hosts.
            let secret = root + "/code.key"
            let (mailerA, mailerB) = (RecordingMailer(), RecordingMailer())
            mailerA.sends.arm(StoreError(.transient, "451 4.3.0 try again later"))
            let (first, _) = try Self.replica(accounts: url, dataDirectory: root + "/a", clock: Date.init, keyFile: secret, mailer: mailerA)
            let (second, secondSteps) = try Self.replica(accounts: url, dataDirectory: root + "/b", clock: Date.init,
                                                         keyFile: secret, mailer: mailerB)
            let request = Event.codeRequested(CodeRequested(requestId: "req-1", email: "ada@example.com", purpose: .login))

            #expect(throws: StoreError.self) { try first.handle(request) }
            let answer = try second.handle(request).map(EventCodec.encode)
            let again = try second.handle(request).map(EventCodec.encode)

            #expect(secondSteps.runs.withLock { $0 } == 0, "the answer was committed with the code")
            #expect(answer.count == 1 && again == answer)
            #expect(mailerA.messages.isEmpty && mailerB.messages.count == 1, "mailed once")
            let text = try #require(mailerB.messages.first?.text)
            let code = try #require(text.range(of: #"is: [0-9]{6}"#, options: .regularExpression).map { String(text[$0].suffix(6)) })
            let verifier = CodeVerifier(codes: try BackendOptions.codeStore(at: url), secrets: try HMACCodeSecrets(keyFile: secret))
            #expect(try verifier.verify(code, email: "ada@example.com", purposes: [.login], requestId: "s-1", at: Date()) == nil,
                    "the code mailed is the code committed")
        }
    }

    /// The code and the answer commit together: when the memo's write fails, the code is rolled back
    /// and nothing is mailed; the retry issues, mails and answers once.
    @Test func aMemoWriteThatFailsLeavesNoCodeAndMailsNothing() throws {
        let url = try PostgresServer.shared().newDatabase()
        try withTemporaryDirectory { host in
            let mailer = RecordingMailer()
            let (replica, _) = try Self.replica(accounts: url, dataDirectory: host, clock: Date.init, mailer: mailer)
            let request = Event.codeRequested(CodeRequested(requestId: "req-1", email: "ada@example.com", purpose: .login))
            let database = PostgresDatabase(url: url)
            try database.execute(script: """
                CREATE FUNCTION refuse_answers() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'answers refused'; END $$;
                CREATE TRIGGER refuse_answers BEFORE INSERT ON answers FOR EACH ROW EXECUTE FUNCTION refuse_answers();
                """)
            #expect(throws: StoreError.self) { try replica.handle(request) }
            let codes = try BackendOptions.codeStore(at: url)
            #expect(try codes.update(email: "ada@example.com", purpose: .login) { (record) throws(StoreError) in record } == nil,
                    "the code is rolled back with the memo's write")
            #expect(mailer.messages.isEmpty)
            try database.execute(script: "DROP TRIGGER refuse_answers ON answers;")
            #expect(try replica.handle(request).count == 1)
            #expect(mailer.messages.count == 1)
        }
    }

    /// The code dispatch worker's handler as its `main` wires it, on the stores of `accounts` and
    /// `dataDirectory` (its code secret `keyFile`, by default the host's, and `mailer`, by default the
    /// host's outbox); and the counter of its step's runs.
    private static func replica(accounts: String, dataDirectory: String, clock: @escaping @Sendable () -> Date,
                                keyFile: String? = nil, mailer: (any Mailer)? = nil)
        throws -> (AnswerOnce<Counting<CodeDispatchStep>>, Counting<CodeDispatchStep>) {
        let stores = BackendOptions(accounts: accounts, dataDirectory: dataDirectory)
        let backends = EmbeddedBackends(dataDirectory)
        let step = Counting(CodeDispatchStep(codes: try stores.codeStore(),
                                             secrets: try HMACCodeSecrets(keyFile: keyFile ?? backends.codeSecretKey()),
                                             mailer: try mailer ?? stores.mailer(), mail: MailSettings(), rules: CodeRules(), clock: clock))
        return (AnswerOnce(step, memo: try stores.answerMemo(of: "code-dispatch-worker"), afterCommit: { try step.step.deliver($0) }), step)
    }
}
