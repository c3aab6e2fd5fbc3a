import Domain
import Foundation
import Kafka
import Registration
import RegistrarClient
import SignIn
@testable import TestSupport
import Testing

/// Account deletion (issue 26 point 1) through the real workers in process: the saga erases the avatar, the profile and
/// the account, every session ends at once, the address is free again, and each request has one outcome — under
/// replays of its request and commands, workers stopped between steps, and its deadline; an attacker deletes nothing.
@Suite(.tags(.inProcess)) struct DeletionTests {
    static let password = "deleter quartz lantern 42"

    @Test func aDeletionErasesEverythingEndsEverySessionAndFreesTheAddress() async throws {
        try await InProcessSystem.with { system in
            let email = "leaver@example.com"
            let uid = try await system.register(email, password: Self.password)
            let imageId = try Self.imageId(of: uid, on: system)
            let registrationId = try #require(try system.backends.accounts().account(uid: uid)).registrationId
            let older = try #require(try await system.signIn(.password, email: email, secret: Self.password).1)
            let tokens = try #require(try await system.signIn(.password, email: email, secret: Self.password).1)
            _ = try await system.requestCode(email, .login)
            let pending = PendingSignIn(requestId: "leaver-sign-in", registrationId: "leaver-registration", email: email, replyKey: "k",
                                        createdAt: system.now)
            try system.backends.options.tokenStore().recordPending(pending)
            let request = system.client.deletion(accessToken: tokens.accessToken, proof: .password(Self.password), locale: "zh-CN")
            let outcome = try await system.send(.accountDeletionRequested(request))
            #expect(outcome == .accountDeleted(AccountDeleted(requestId: request.requestId)))

            #expect(try system.backends.accounts().account(uid: uid) == nil)
            #expect(try system.backends.profiles().profile(uid: uid) == nil)
            #expect(try !system.backends.objects().contains(AvatarStep.key(imageId: imageId)))
            #expect(try system.audit().isEmpty)
            let stores = try system.backends.options.accountChangeStore()
            #expect(try stores.deletion(requestId: request.requestId)?.email == "", "the finished record keeps no address")
            let registration = try #require(try stores.saga(registrationId))
            #expect(registration.email.isEmpty && registration.name.isEmpty && registration.sealedResult == nil, "the registration keeps its ids only")
            #expect(try stores.changes(uid: uid).isEmpty)
            #expect(try system.backends.options.codeStore().update(email: email, purpose: .login) { (record) throws(StoreError) in record } == nil,
                    "the codes mailed to the address are forgotten")
            #expect(try system.backends.options.tokenStore().pending(requestId: pending.requestId) == nil, "no pending sign-in names the address")
            for token in [older, tokens] {
                #expect(reason(try await system.client.profile(accessToken: token.accessToken, timeout: .seconds(60)).0) == .invalidCredentials)
                #expect(reason(try await system.signIn(.refreshToken, email: nil, secret: token.refreshToken).0) == .invalidCredentials)
            }
            #expect(reason(try await system.signIn(.password, email: email, secret: Self.password).0) == .invalidCredentials)
            // The owner was told, in the language asked for; the notice carries no secret.
            let notice = try system.email(kind: "notice", requestId: request.requestId)
            #expect(notice.contains("To: \(email)") && !notice.contains(tokens.accessToken))

            // The address registers again, as a new account; the deletion replayed (request and commands) touches it not.
            let newUid = try await system.register(email, password: Self.password)
            #expect(newUid != uid)
            #expect(try await system.send(.accountDeletionRequested(request)) == outcome)
            for topic in [Topic.imageCommands, Topic.profileCommands] {
                let command = try await system.message(on: topic, key: request.requestId)
                try await system.client.publish(OutgoingMessage(topic: command.topic, key: command.key, value: command.value, headers: command.headers))
            }
            try await Task.sleep(for: .seconds(2))
            let newImageId = try Self.imageId(of: newUid, on: system)
            #expect(try system.backends.accounts().account(uid: newUid)?.status == .active)
            #expect(try system.backends.profiles().profile(uid: newUid)?.email == email)
            #expect(try system.backends.objects().contains(AvatarStep.key(imageId: newImageId)))
            guard case .tokenIssued = try await system.signIn(.password, email: email, secret: Self.password).0 else {
                Issue.record("the replayed deletion reached the new account")
                return
            }
        }
    }

    /// Someone else's sealed token copied into their own request, a forged token, a token of an older session, or a seal
    /// made for another request type: refused, and nothing of the victim's changes.
    @Test func anAttackerOrAnOlderSessionDeletesNothing() async throws {
        try await InProcessSystem.with(extraArguments: ["account-worker": ["--reauthentication-window", "60"]]) { system in
            let email = "victim-of-deletion@example.com"
            let uid = try await system.register(email, password: Self.password)
            let victim = try #require(try await system.signIn(.password, email: email, secret: Self.password).1)
            let before = try system.counts()

            let copiedSeal = system.client.deletion(accessToken: victim.accessToken, proof: .password(Self.password), requestId: "victims-deletion").sealedAccessToken
            let copied = AccountDeletionRequested(requestId: "attackers-deletion", sealedAccessToken: copiedSeal,
                                                  sealedPassword: system.client.seal(Self.password, for: .reauthentication,
                                                                                     requestId: "attackers-deletion", email: nil),
                                                  replyKey: system.client.replyKey(for: "attackers-deletion"))
            #expect(reason(try await system.send(.accountDeletionRequested(copied))) == .invalidCredentials)
            let forged = String(victim.accessToken.dropLast(4)) + "AAAA"
            #expect(reason(try await system.client.deleteAccount(accessToken: forged, proof: .password(Self.password), timeout: .seconds(60))) == .invalidCredentials)
            let exportSeal = AccountDeletionRequested(requestId: "export-seal", sealedAccessToken: system.client.seal(
                victim.accessToken, for: .export, requestId: "export-seal", email: nil), sealedPassword: system.client.seal(
                Self.password, for: .reauthentication, requestId: "export-seal", email: nil), replyKey: system.client.replyKey(for: "export-seal"))
            #expect(reason(try await system.send(.accountDeletionRequested(exportSeal))) == .invalidCredentials)
            system.clock.advance(by: 61)
            #expect(reason(try await system.client.deleteAccount(accessToken: victim.accessToken, proof: .password(Self.password), timeout: .seconds(60))) == .reauthenticationRequired)

            #expect(try system.counts() == before)
            #expect(try system.backends.accounts().account(uid: uid)?.status == .active)
            guard case .profileAnswered = try await system.client.profile(accessToken: victim.accessToken, timeout: .seconds(60)).0 else {
                Issue.record("a refused deletion ended the victim's session")
                return
            }
        }
    }

    /// Issue 26: a deletion re-authenticates with the owner's password or a `delete_account` code mailed to the account's
    /// address. A recent session's token alone, a wrong password, a code of another purpose or another account's
    /// `delete_account` code: refused, and nothing of the account changes; its own code deletes it.
    @Test func aDeletionNeedsThePasswordOrADeleteAccountCode() async throws {
        try await InProcessSystem.with { system in
            let (email, other) = ("proves-it@example.com", "someone-else@example.com")
            let uid = try await system.register(email, password: Self.password)
            _ = try await system.register(other, password: Self.password)
            let tokens = try #require(try await system.signIn(.password, email: email, secret: Self.password).1)
            let before = try system.counts()
            let delete = { (proof: DeletionProof) in
                reason(try await system.client.deleteAccount(accessToken: tokens.accessToken, proof: proof, timeout: .seconds(60)))
            }

            let bare = AccountDeletionRequested(requestId: "token-only", sealedAccessToken: system.client.seal(
                tokens.accessToken, for: .deleteAccount, requestId: "token-only", email: nil), replyKey: system.client.replyKey(for: "token-only"))
            #expect(reason(try await system.send(.accountDeletionRequested(bare))) == .reauthenticationRequired)
            #expect(try await delete(.password("not the password 1234")) == .invalidCredentials)
            #expect(try await delete(.code(try await system.code(for: email, .login))) == .invalidCredentials)
            #expect(try await delete(.code(try await system.code(for: other, .deleteAccount))) == .invalidCredentials)

            #expect(try system.counts() == before)
            #expect(try system.backends.accounts().account(uid: uid)?.status == .active)
            guard case .profileAnswered = try await system.client.profile(accessToken: tokens.accessToken, timeout: .seconds(60)).0 else {
                Issue.record("a refused deletion ended the session")
                return
            }
            let request = system.client.deletion(accessToken: tokens.accessToken, proof: .code(try await system.code(for: email, .deleteAccount)))
            #expect(try await system.send(.accountDeletionRequested(request)) == .accountDeleted(AccountDeleted(requestId: request.requestId)))
            #expect(try system.backends.accounts().account(uid: uid) == nil)
        }
    }

    /// The profile worker down and the account worker restarted between the steps, the deadline passing, the request
    /// redelivered: the deletion goes forward — never back — to one outcome, and the account signs in nowhere meanwhile.
    @Test func aDeletionGoesOnThroughStoppedWorkersItsDeadlineAndRedelivery() async throws {
        try await InProcessSystem.with { system in
            let email = "interrupted@example.com"
            let uid = try await system.register(email, password: Self.password)
            let tokens = try #require(try await system.signIn(.password, email: email, secret: Self.password).1)
            try await system.hold("profile-worker")
            let request = system.client.deletion(accessToken: tokens.accessToken, proof: .password(Self.password))
            try await system.publish(.accountDeletionRequested(request))
            let stores = try system.backends.options.accountChangeStore()
            try await Self.wait { try stores.deletion(requestId: request.requestId)?.stage == .erasingProfile }
            #expect(try stores.account(uid: uid)?.status == .deleting)
            #expect(reason(try await system.signIn(.password, email: email, secret: Self.password).0) == .invalidCredentials)
            #expect(reason(try await system.client.profile(accessToken: tokens.accessToken, timeout: .seconds(60)).0) == .invalidCredentials)

            try await system.hold("account-worker")
            try await system.resume("account-worker")
            system.letTimePass(seconds: 121)
            try await Self.wait { try await system.messageCount(on: Topic.profileCommands, key: request.requestId) >= 2 }
            #expect(try stores.account(uid: uid)?.status == .deleting, "the deadline moves a deletion forward, never back")

            try await system.resume("profile-worker")
            #expect(try await system.send(.accountDeletionRequested(request)) == .accountDeleted(AccountDeleted(requestId: request.requestId)))
            #expect(try stores.account(uid: uid) == nil && system.backends.profiles().profile(uid: uid) == nil)
            try await Task.sleep(for: .seconds(1))
            let answers = try await system.allTopicMessages().filter { $0.topic == Topic.accountOutcomes && $0.keyString == request.requestId }
            let given = answers.compactMap { try? $0.event() }
            #expect(!given.isEmpty && given.allSatisfy { $0 == .accountDeleted(AccountDeleted(requestId: request.requestId)) },
                    "one outcome, however often it is given")
            #expect(try system.audit().isEmpty)
        }
    }

    /// Issue 26 review: an attacker reads a deletion's request id on `account.requests` and, while its profile step is
    /// pending, publishes a password change with junk seals and an undecodable message under it. Neither is answered
    /// on its own (the id is the deletion's): the deletion completes, the account is gone, the address free, and the
    /// request's one outcome is `AccountDeleted`.
    @Test func anotherRequestUnderADeletionsIdLeavesItsOutcomeAlone() async throws {
        try await InProcessSystem.with { system in
            let email = "hijacked-id@example.com"
            let uid = try await system.register(email, password: Self.password)
            let tokens = try #require(try await system.signIn(.password, email: email, secret: Self.password).1)
            try await system.hold("profile-worker")
            let request = system.client.deletion(accessToken: tokens.accessToken, proof: .password(Self.password))
            let id = request.requestId
            try await system.publish(.accountDeletionRequested(request))
            let stores = try system.backends.options.accountChangeStore()
            try await Self.wait { try stores.deletion(requestId: id)?.stage == .erasingProfile }

            try await system.publish(.passwordChangeRequested(PasswordChangeRequested(
                requestId: id, email: email, sealedPassword: "junk", sealedNewPassword: "junk", replyKey: system.client.replyKey(for: id))))
            try await system.publish(Array(#"{"requestId":"\#(id)","type":"NoSuchRequest"}"#.utf8), to: Topic.accountRequests, key: id)
            try await Self.wait { try await system.messageCount(on: Topic.deadLetters(of: Topic.accountRequests), key: id) >= 1 }
            try await Task.sleep(for: .seconds(1))

            try await system.resume("profile-worker")
            try await Self.wait { try stores.account(uid: uid) == nil }
            #expect(try stores.deletion(requestId: id)?.stage == .completed)
            #expect(try stores.account(email: email) == nil, "the address is free")
            try await Self.expectOneOutcome(of: id, on: system)
            #expect(try await system.register(email, password: Self.password) != uid)
        }
    }

    /// Issue 26 review: the mail server refuses the deletion notice for good (550, a leaver's closed mailbox). The
    /// refusal is logged and counted (`registrar_mail_sends_total{result="permanent"}`), never the request's answer:
    /// the deletion completes with one outcome, `AccountDeleted`.
    @Test func aNoticeRefusedForGoodFailsNotTheDeletion() async throws {
        try await InProcessSystem.with { system in
            let email = "closed-mailbox@example.com"
            let uid = try await system.register(email, password: Self.password)
            let tokens = try #require(try await system.signIn(.password, email: email, secret: Self.password).1)
            let refusing = try SMTPServer(rejecting: "550 5.1.1 mailbox closed")
            try await system.hold("account-worker")
            try system.startWorker("account-worker", extraArguments: ["--mail", "smtp://127.0.0.1:\(refusing.port)?tls=none"])
            let request = system.client.deletion(accessToken: tokens.accessToken, proof: .password(Self.password))
            #expect(try await system.send(.accountDeletionRequested(request)) == .accountDeleted(AccountDeleted(requestId: request.requestId)))
            let stores = try system.backends.options.accountChangeStore()
            #expect(try stores.account(uid: uid) == nil && stores.account(email: email) == nil)
            try await Self.expectOneOutcome(of: request.requestId, on: system)
            #expect(try await system.messageCount(on: Topic.deadLetters(of: Topic.accountRequests), key: request.requestId) == 0)
        }
    }

    /// Every answer given to `requestId` on `account.outcomes` is `AccountDeleted`.
    static func expectOneOutcome(of requestId: String, on system: InProcessSystem) async throws {
        try await Task.sleep(for: .seconds(1))
        let given = try await system.allTopicMessages().filter { $0.topic == Topic.accountOutcomes && $0.keyString == requestId }
            .compactMap { try? $0.event() }
        #expect(!given.isEmpty && given.allSatisfy { $0 == .accountDeleted(AccountDeleted(requestId: requestId)) },
                "one outcome: \(given.map(\.type))")
    }

    static func imageId(of uid: String, on system: some FlowSystem) throws -> String {
        let accounts = try system.backends.accounts()
        let registrationId = try #require(try accounts.account(uid: uid)).registrationId
        return try #require(try accounts.saga(registrationId)).imageId
    }

    static func wait(_ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while try await !condition() {
            guard ContinuousClock.now < deadline else { throw HarnessError("the condition never held") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}
