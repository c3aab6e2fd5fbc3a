import AccountAssembly
import Backends
import Crypto
import Domain
import Foundation
import Installation
import RegistrarClient
import Registration
import SQLStores
import Support
import Synchronization
@testable import TestSupport
import Testing
import WorkerAssembly

/// Two replicas of the account worker on two hosts (separate data directories, the operator's one key
/// set) on one PostgreSQL database answer a redelivered sign-in once, byte for byte, and its side
/// effect (a refresh token stored) happens once: the answer memo is kept in the account database, in
/// the same transaction as the step's writes.
@Suite(.tags(.production)) struct ReplicaAccountWorkersTests {
    static let password = "correct horse battery staple"

    /// One PostgreSQL account database with ada's active account and complete profile, the key set
    /// its replicas share, and a data directory per host.
    struct Deployment {
        let url: String
        let keys: String
        let hosts: [String]
        let request: Event

        /// The sign-in handler of the replica on host `index`, as `account-worker`'s `main` wires it.
        func replica(_ index: Int) throws -> any EventHandler {
            let parsed = try ParsedArguments(["--data-dir", hosts[index], "--keys-dir", keys, "--accounts", url, "--profiles", url],
                                             spec: AccountWorker.spec, environment: [:])
            let stack = try AccountWorker.stack(parsed, dataDirectory: hosts[index], clock: Date.init)
            return try #require(stack.routing.step(for: .tokenRequested, on: Topic.authRequests))
        }

        /// How many refresh tokens the database holds.
        func refreshTokens() throws -> Int64 {
            let rows = try PostgresDatabase(url: url).withConnection { (connection) throws(SQLError) in
                try connection.query("SELECT count(*) FROM refresh_tokens", [])
            }
            guard case .integer(let count)? = rows.first?.values.first else { throw HarnessFailure("no count") }
            return count
        }
    }

    struct HarnessFailure: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    @Test func aRedeliveryToTheOtherReplicaGetsTheFirstAnswerByteForByte() throws {
        try withDeployment { deployment in
            let answer = try deployment.replica(0).handle(deployment.request).map(EventCodec.encode)
            let redelivered = try deployment.replica(1).handle(deployment.request).map(EventCodec.encode)
            #expect(answer.count == 1)
            #expect(try answer.map(EventCodec.decode).first?.type == Event.Kind.tokenIssued.rawValue, "signed in")
            #expect(redelivered == answer, "the same bytes")
            #expect(try deployment.refreshTokens() == 1, "one refresh token stored")
        }
    }

    /// Both replicas take the request at once: one commits its tokens with its answer, the other finds
    /// that answer when it keeps its own, so its whole run (its refresh token) is rolled back.
    @Test func concurrentDeliveriesToBothReplicasAreAnsweredOnceWithOneSideEffect() throws {
        try withDeployment { deployment in
            let replicas = try [deployment.replica(0), deployment.replica(1)]
            let answers = Mutex<[Int: [[UInt8]]]>([:])
            let request = deployment.request
            onThreads(2) { index in
                if let answer = try? replicas[index].handle(request).map(EventCodec.encode) {
                    answers.withLock { $0[index] = answer }
                }
            }
            let given = answers.withLock { $0 }
            #expect(given.count == 2 && given[0]?.count == 1)
            #expect(given[0] == given[1], "the same bytes")
            #expect(try deployment.refreshTokens() == 1, "one refresh token stored")
        }
    }

    /// No crash can fall between the step's commit and the memo's: when the memo's write fails, the
    /// refresh token is rolled back with it; the retry, on the other replica, signs in once.
    @Test func aFailedMemoWriteLeavesNoSideEffectAndTheRetryAnswersOnce() throws {
        try withDeployment { deployment in
            let (first, second) = (try deployment.replica(0), try deployment.replica(1))
            let database = PostgresDatabase(url: deployment.url)
            try database.execute(script: """
                CREATE FUNCTION refuse_answers() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'answers refused'; END $$;
                CREATE TRIGGER refuse_answers BEFORE INSERT ON answers FOR EACH ROW EXECUTE FUNCTION refuse_answers();
                """)
            #expect(throws: StoreError.self) { try first.handle(deployment.request) }
            #expect(try deployment.refreshTokens() == 0, "the refresh token is rolled back with the memo's write")
            try database.execute(script: "DROP TRIGGER refuse_answers ON answers;")
            let answer = try second.handle(deployment.request).map(EventCodec.encode)
            #expect(try first.handle(deployment.request).map(EventCodec.encode) == answer)
            #expect(try deployment.refreshTokens() == 1)
        }
    }

    /// Runs `body` on a new deployment: a new database, a key set, two host directories.
    private func withDeployment(_ body: (Deployment) throws -> Void) throws {
        let url = try PostgresServer.shared().newDatabase()
        try withTemporaryDirectory { root in
            let keys = root + "/keys"
            let hosts = [root + "/host-a", root + "/host-b"]
            for host in hosts { try createPrivateDirectory(host) }
            let publicKey = try KeySet.ensure(in: keys)
            let accounts = try BackendOptions.accountStore(at: url)
            var saga = sagaRecord("7b0c1c1e-4f7e-4f57-a3a0-3c1b8f0b2c11", stage: .completed)
            saga.uid = "00000000-0000-4000-8000-00000000ada0"
            let account = Account(uid: saga.uid, email: saga.email, passwordHash: try PasswordHasher().hash(Self.password),
                                  status: .active, registrationId: saga.registrationId, createdAt: startDate, verifiedAt: startDate)
            #expect(try accounts.start(saga, account: account) == .started)
            try BackendOptions.profileStore(at: url).write(
                Profile(name: "Ada", email: saga.email, profileImage: "https://images.example.com/ada.jpg", isMapLocationEnabled: true),
                uid: saga.uid, revision: saga.version)
            let requestId = "5d7c2a4e-0c5b-4a55-9b1e-2f8f5e1a9c01"
            let replyKey = SealingKeyPair.generate().publicKey.base64
            let request = Event.tokenRequested(TokenRequested(
                requestId: requestId, grantType: .password, email: saga.email,
                sealedCredential: publicKey.sealedBase64(Self.password, for: .signInPassword,
                                                         in: SealContext(requestId: requestId, email: saga.email, replyKey: replyKey)),
                replyKey: replyKey))
            try body(Deployment(url: url, keys: keys, hosts: hosts, request: request))
        }
    }
}
