import Domain
import EventTransport
import Foundation
import Kafka
import Registration
import SignIn
import Testing
import WorkerRuntime

/// The attacks of issue 22 on account ownership, played as a client that can publish to and read the topics, on
/// any `TestSystem`: the in-process tier (`OwnershipTests`) and the real binaries on both stores
/// (`OwnershipAttackTests`) run the same bodies.
extension Attacks {
    // MARK: Point 1: no account without a proven mailbox

    /// The pre-hijacker registers the victim's address with a password of its own: without the register code mailed
    /// there, or with a guessed one, the registration fails with its reason and nothing is created; the owner, who
    /// reads the mail, registers.
    static func aRegistrationWithoutTheMailboxCreatesNothing(on system: some TestSystem) async throws {
        let email = unique("victim") + "@example.com"
        let attacker = try system.client.registration(email: email, password: "attacker tram7 violet kettle", code: nil, name: "Attacker")
        guard case .failed(let missing) = try await system.client.register(attacker, timeout: .seconds(60)) else {
            Issue.record("a registration without a code completed")
            return
        }
        #expect(missing.reason == .codeRequired)
        _ = try await system.code(for: email, .register)
        for guess in ["000000", "123456", "999999"] {
            let guessed = try system.client.registration(email: email, password: "attacker tram7 violet kettle", code: guess, name: "Attacker")
            guard case .failed(let failed) = try await system.client.register(guessed, timeout: .seconds(60)) else {
                Issue.record("a guessed code registered the address")
                return
            }
            #expect(failed.reason == .invalidCredentials)
        }
        #expect(try system.backends.accounts().account(email: email) == nil, "nothing created")
        let owner = try await system.victim(email, password: "owner's own tram7 violet kettle")
        #expect(try system.backends.accounts().account(uid: owner.uid)?.isVerified == true)
    }

    /// An account made before registrations needed a code — registered by a pre-hijacker, who signed in then — stays
    /// usable by its password only with a login code mailed to the address; when the owner proves the mailbox by a
    /// code sign-in, the pre-hijacker's password stops working, its session ends, and the owner is told.
    static func aPreHijackedAccountIsTheOwnersAfterTheFirstProof(on system: some TestSystem) async throws {
        let email = unique("prehijacked") + "@example.com"
        let password = "attacker tram7 violet kettle"
        let uid = try await system.register(email, password: password)
        let session = try #require(try await system.signIn(.password, email: email, secret: password).1)
        try await system.backends.executeOnAccounts("UPDATE accounts SET verified_at = NULL WHERE uid = '\(uid)'", logs: system.logs)
        system.letTimePass(seconds: 1)

        #expect(reason(try await system.signIn(.password, email: email, secret: password).0) == .emailUnverified,
                "the pre-hijacker's password alone signs in no more")
        let id = unique("owner")
        let code = try await system.code(for: email, .login)
        let (signedIn, owner) = try await system.signIn(.email, email: email, secret: code, id: id)
        guard case .tokenIssued = signedIn else { Issue.record("the owner's code sign-in failed: \(signedIn)"); return }
        #expect(owner?.uid == uid, "the owner lands in the account")

        #expect(reason(try await system.signIn(.password, email: email, secret: password).0) == .invalidCredentials,
                "the password set before the proof works no more")
        #expect(reason(try await system.signIn(.refreshToken, email: nil, secret: session.refreshToken).0) == .invalidCredentials)
        #expect(reason(try await system.client.profile(accessToken: session.accessToken, timeout: .seconds(60)).0) == .invalidCredentials)
        #expect(try await system.client.profile(accessToken: try #require(owner).accessToken, timeout: .seconds(60)).1?.uid == uid)
        let notice = try system.email(kind: "notice", requestId: id)
        #expect(notice.contains("To: \(email)") && notice.contains("no longer works"))

        // The owner sets a password of their own through a reset.
        let mine = "owner's own oak lantern \(id.suffix(4))"
        let reset = try await system.send(.passwordResetRequested(system.client.passwordReset(email: email, code: try await system.code(for: email, .resetPassword),
                                                                                               newPassword: mine)))
        guard case .accountChangeCompleted = reset else { Issue.record("the owner's reset failed: \(reset)"); return }
        guard case .tokenIssued = try await system.signIn(.password, email: email, secret: mine).0 else { Issue.record("the owner's password fails"); return }
    }

    /// An account made before registrations needed a code, by its owner: the right password asks once for a login
    /// code mailed to the address; with both it signs in, the password staying, and from then on the password alone.
    static func anUnprovenAccountsPasswordAsksOnceForALoginCode(on system: some TestSystem) async throws {
        let email = unique("legacy") + "@example.com"
        let password = "legacy tram7 violet kettle"
        let uid = try await system.register(email, password: password)
        try await system.backends.executeOnAccounts("UPDATE accounts SET verified_at = NULL WHERE uid = '\(uid)'", logs: system.logs)
        #expect(reason(try await system.signIn(.password, email: email, secret: password).0) == .emailUnverified)
        #expect(reason(try await system.send(.passwordChangeRequested(system.client.passwordChange(email: email, password: password,
                                                                                                    newPassword: "some oak lantern harbour")))) == .emailUnverified,
                "no change by password either")
        let code = try await system.code(for: email, .login)
        let (outcome, tokens) = try await system.client.requestTokens(.password, email: email, credential: password, code: code, timeout: .seconds(60))
        guard case .tokenIssued = outcome else { Issue.record("password and code refused: \(outcome)"); return }
        #expect(tokens?.uid == uid)
        guard case .tokenIssued = try await system.signIn(.password, email: email, secret: password).0 else {
            Issue.record("the password alone fails once the mailbox is proven")
            return
        }
    }

    // MARK: Point 2: the owner can always come back

    /// Wrong passwords and wrong codes lock both paths of the owner's account, and someone keeps requesting codes for the
    /// address: the code mailed to the owner still lets them sign in (its recovery form passes the locks) and reset the
    /// password, and the requests never replace the owner's code.
    static func theOwnerComesBackWhateverTheCountersSay(on system: some TestSystem) async throws {
        let email = unique("lockedout") + "@example.com"
        let password = "owner tram7 violet kettle"
        let uid = try await system.register(email, password: password)
        _ = try await system.requestCode(email, .login)
        for guess in 1...6 {
            _ = try await system.signIn(.password, email: email, secret: "wrong guess \(guess)")
            _ = try await system.signIn(.email, email: email, secret: String(format: "%06d", 100_000 + guess))
        }
        #expect(reason(try await system.signIn(.password, email: email, secret: password).0) == .invalidCredentials, "the password path is locked")
        // The attacker asks for codes again and again: the owner's code is mailed again, never replaced. Its digits died
        // of the guesses (and the account's code path is locked): the mail carries its recovery form, which passes.
        let owners = UUID().uuidString
        guard case .codeSent = try await system.requestCode(email, .login, id: owners) else { Issue.record("no code mailed"); return }
        #expect(try system.email(kind: "code", requestId: owners).contains("mistyped too often"))
        let recovery = try system.recoveryCode(sentBy: owners)
        for _ in 1...5 { _ = try await system.requestCode(email, .login) }
        let (signedIn, tokens) = try await system.signIn(.email, email: email, secret: recovery)
        guard case .tokenIssued = signedIn else { Issue.record("the owner's recovery code refused: \(signedIn)"); return }
        #expect(tokens?.uid == uid)

        // Locked again, the owner resets the password with the recovery form of a reset code.
        for guess in 1...6 { _ = try await system.signIn(.password, email: email, secret: "wrong again \(guess)") }
        let resetRequest = UUID().uuidString
        guard case .codeSent = try await system.requestCode(email, .resetPassword, id: resetRequest) else { Issue.record("no reset code"); return }
        let new = "owner's new oak lantern \(resetRequest.prefix(4))"
        let reset = try await system.send(.passwordResetRequested(system.client.passwordReset(email: email, code: try system.recoveryCode(sentBy: resetRequest),
                                                                                               newPassword: new)))
        guard case .accountChangeCompleted = reset else { Issue.record("the owner's reset refused: \(reset)"); return }
        guard case .tokenIssued = try await system.signIn(.password, email: email, secret: new).0 else { Issue.record("the new password fails"); return }
    }

    /// No lock holds for good: wrong passwords lock, and after what a patient attacker reaches in a day (the count far
    /// past the hundred that locked for good before; set in the store here) one more wrong guess locks for at most the
    /// policy's maximum (short here): the right password sent after it signs in. The locks are read from the store,
    /// since a lock this short may be over before a loaded machine delivers the next sign-in.
    static func locksExpireHoweverManyFailures(on system: some TestSystem, maximum: Double) async throws {
        let email = unique("patient") + "@example.com"
        let password = "owner tram7 violet kettle"
        let uid = try await system.register(email, password: password)
        for guess in 1...5 { _ = try await system.signIn(.password, email: email, secret: "guess \(guess)") }
        #expect(try passwordFailures(of: uid, on: system).lockedUntil != nil, "five wrong passwords lock")
        try await system.backends.executeOnAccounts("UPDATE sign_in_failures SET consecutive = 150, locked_until = NULL WHERE uid = '\(uid)'",
                                                    logs: system.logs)
        _ = try await system.signIn(.password, email: email, secret: "guess 151")
        let failures = try passwordFailures(of: uid, on: system)
        #expect(failures.consecutive == 151 && failures.lockedUntil != nil, "the 151st wrong password counts and locks: \(failures)")
        // The workers' clock (moved in process, the real one live) past the longest lock the 151st failure may earn.
        system.letTimePass(seconds: maximum + 1)
        try await Task.sleep(for: .seconds(maximum + 1))
        let outcome = try await system.signIn(.password, email: email, secret: password).0
        guard case .tokenIssued = outcome else { Issue.record("still locked past the maximum: \(outcome)"); return }
    }

    /// The password failures the store holds for `uid`.
    private static func passwordFailures(of uid: String, on system: some TestSystem) throws -> SignInFailures {
        let store = try #require(try system.backends.accounts() as? any CredentialStore)
        return try store.updateFailures(uid: uid) { $0 }
    }

    // MARK: Point 3: credential changes end sessions

    /// A session opened before a password change, a password reset or an email change is over after it: its refresh
    /// token is refused and its access token no longer reads `GET /me`, while a sign-in right after the change works.
    static func credentialChangesEndEverySession(on system: some TestSystem) async throws {
        var email = unique("session") + "@example.com"
        var password = "tram7 violet kettle"
        _ = try await system.register(email, password: password)
        for change in ["password change", "password reset", "email change"] {
            let before = try #require(try await system.signIn(.password, email: email, secret: password).1, "\(change): no sign-in")
            #expect(try await profile(of: before.accessToken, on: system) != nil, "\(change): the session reads /me before")
            let outcome: Event
            switch change {
            case "password change":
                let new = "oak lantern \(UUID().uuidString.prefix(6)) harbour"
                outcome = try await system.send(.passwordChangeRequested(system.client.passwordChange(email: email, password: password, newPassword: new)))
                password = new
            case "password reset":
                let new = "quiet heron \(UUID().uuidString.prefix(6)) meadow"
                let code = try await system.code(for: email, .resetPassword)
                outcome = try await system.send(.passwordResetRequested(system.client.passwordReset(email: email, code: code, newPassword: new)))
                password = new
            default:
                let moved = unique("moved") + "@example.com"
                let code = try await system.code(for: moved, .changeEmail)
                outcome = try await system.send(.emailChangeRequested(system.client.emailChange(email: email, password: password, newEmail: moved,
                                                                                                 code: code)))
                email = moved
            }
            guard case .accountChangeCompleted = outcome else { Issue.record("\(change) failed: \(outcome)"); return }
            #expect(reason(try await system.signIn(.refreshToken, email: nil, secret: before.refreshToken).0) == .invalidCredentials,
                    "\(change): the refresh token of the session before is refused")
            #expect(try await profile(of: before.accessToken, on: system) == nil, "\(change): the access token of the session before is refused")
            let after = try #require(try await system.signIn(.password, email: email, secret: password).1, "\(change): no sign-in after")
            #expect(try await profile(of: after.accessToken, on: system) != nil, "\(change): a session begun after it reads /me at once")
            guard case .tokenIssued = try await system.signIn(.refreshToken, email: nil, secret: after.refreshToken).0 else {
                Issue.record("\(change): the session begun after it does not refresh")
                return
            }
        }
    }

    /// The profile `GET /me` gives for `accessToken`, or nil when it is refused `invalid_credentials`.
    private static func profile(of accessToken: String, on system: some TestSystem) async throws -> ProfileView? {
        let (outcome, profile) = try await system.client.profile(accessToken: accessToken, timeout: .seconds(60))
        if profile == nil { #expect(reason(outcome) == .invalidCredentials, "\(outcome)") }
        return profile
    }

    // MARK: Point 4: commands apply once, in order

    /// The account worker's own signed `WriteProfile` of a registration, and the `UpdateProfileEmail` of an email change
    /// the account made since, published again: each is dead-lettered `stale_command`, and the profile keeps the
    /// account's current email.
    static func aReplayedCommandUndoesNoLaterStep(on system: some TestSystem) async throws {
        let victim = try await system.victim(unique("replayed") + "@example.com")
        let write = try await system.message(on: Topic.profileCommands, key: victim.registrationId)
        var email = victim.email
        var forward: KafkaMessage?
        for _ in 0..<2 {
            let moved = unique("moved") + "@example.com"
            let request = system.client.emailChange(email: email, password: victim.password, newEmail: moved,
                                                    code: try await system.code(for: moved, .changeEmail))
            guard case .accountChangeCompleted = try await system.send(.emailChangeRequested(request)) else {
                Issue.record("the email change to \(moved) failed")
                return
            }
            if forward == nil { forward = try await system.message(on: Topic.profileCommands, key: request.requestId) }
            email = moved
        }
        for replayed in [write, try #require(forward)] {
            try await system.client.publish(OutgoingMessage(topic: replayed.topic, key: replayed.key, value: replayed.value, headers: replayed.headers))
            let letter = try await system.deadLetter(from: Topic.profileCommands, key: try #require(replayed.keyString))
            #expect(letter.header("dlq.reason").map { String(decoding: $0, as: UTF8.self) } == DeadLetterReason.staleCommand.rawValue)
        }
        #expect(try system.backends.profiles().profile(uid: victim.uid)?.email == email, "the profile keeps the current email")
        #expect(try system.backends.accounts().account(uid: victim.uid)?.email == email)
    }

    /// A registration undone past its deadline (its profile worker stopped): the `StoreAvatar` and `WriteProfile` it
    /// sent, published again once the profile worker is back, are dead-lettered `stale_command` and bring back no
    /// avatar and no profile. `stopProfiles` and `startProfiles` stop and restart the profile worker.
    static func replayedCommandsBringBackNothingCompensationRemoved(on system: some TestSystem, stopProfiles: () async throws -> Void,
                                                                     startProfiles: () async throws -> Void) async throws {
        try await stopProfiles()
        let request = try await system.request(email: unique("undone") + "@example.com", avatar: nil)
        try await system.publish([request])
        guard case .registrationFailed(let failed) = try await system.waitForOutcomes([request.registrationId])[request.registrationId]?.first else {
            Issue.record("the registration did not fail")
            try await startProfiles()
            return
        }
        #expect(failed.reason == .deadlineExceeded)
        try await startProfiles()
        let saga = try #require(try system.backends.accounts().saga(request.registrationId))
        // The profile worker catches up: the profile written, then deleted by the compensation that follows it.
        try await system.waitForProfile(of: saga.uid, toBe: nil, afterCommands: 2)
        let store = try await system.message(on: Topic.imageCommands, key: request.registrationId)
        let write = try await system.message(on: Topic.profileCommands, key: request.registrationId)
        for replayed in [store, write] {
            try await system.client.publish(OutgoingMessage(topic: replayed.topic, key: replayed.key, value: replayed.value, headers: replayed.headers))
        }
        for topic in [Topic.imageCommands, Topic.profileCommands] {
            let letter = try await system.deadLetter(from: topic, key: request.registrationId)
            #expect(letter.header("dlq.reason").map { String(decoding: $0, as: UTF8.self) } == DeadLetterReason.staleCommand.rawValue, "\(topic)")
        }
        #expect(try system.backends.profiles().profile(uid: saga.uid) == nil)
        #expect(try !system.backends.objects().contains(AvatarStep.key(imageId: saga.imageId)))
        #expect(try system.backends.accounts().account(uid: saga.uid) == nil)
    }

    // MARK: Point 5: one answer per request, per flow, for a bounded time

    /// An id answered on `auth.requests` and reused for a password change on `account.requests` gets the change's
    /// own answer on `account.outcomes`; a retry of the sign-in on its own flow gets the first answer again.
    static func anIdReusedOnAnotherFlowGetsItsOwnAnswer(on system: some TestSystem) async throws {
        let email = unique("reuser") + "@example.com"
        let password = "tram7 violet kettle"
        _ = try await system.register(email, password: password)
        let id = unique("reused")
        let (first, _) = try await system.signIn(.password, email: email, secret: password, id: id)
        guard case .tokenIssued = first else { Issue.record("no sign-in: \(first)"); return }
        let change = system.client.passwordChange(email: email, password: password, newPassword: "oak lantern \(id) harbour", requestId: id)
        let changed = try await system.send(.passwordChangeRequested(change), timeout: .seconds(30))
        #expect(changed == .accountChangeCompleted(AccountChangeCompleted(requestId: id, change: .changePassword)))
        let (again, _) = try await system.signIn(.password, email: email, secret: password, id: id)
        #expect(again == first, "the sign-in retried on its own flow gets its first answer")
    }

    /// An answer is forgotten once older than the retention its worker was started with (`--answer-retention`).
    static func answersAreForgottenAfterTheirRetention(on system: some TestSystem, within timeout: Duration = .seconds(60)) async throws {
        let id = unique("kept")
        _ = try await system.requestCode(unique("retention") + "@example.com", .login, id: id)
        let memo = try system.backends.options.answerMemo(of: "code-dispatch-worker")
        let key = AnswerKey(topic: Topic.codeRequests, id: id)
        #expect(try memo.answer(to: key) != nil, "kept at first")
        let deadline = ContinuousClock.now + timeout
        while try memo.answer(to: key) != nil {
            guard ContinuousClock.now < deadline else { Issue.record("the answer was kept past its retention"); return }
            system.letTimePass(seconds: 2)
            try await Task.sleep(for: .milliseconds(250))
        }
    }

    // MARK: Point 6: passwords as strong as users believe

    /// The passwords libpwquality let through are refused `password_too_common` by registration, change and reset
    /// alike; a long passphrase is not.
    static func commonPasswordsAreRefusedEverywhere(on system: some TestSystem) async throws {
        let common = ["password1234", "P@ssw0rd", "P@ssword1", "Welcome2024", "Summer2024", "Winter2023!"]
        for password in common {
            let request = try await system.request(email: unique("weak") + "@example.com", password: password)
            guard case .failed(let failed) = try await system.client.register(request, timeout: .seconds(60)) else {
                Issue.record("\(password) registered")
                continue
            }
            #expect(failed.reason == .passwordTooCommon, "\(password): \(failed.reason)")
        }
        let email = unique("strong") + "@example.com"
        let passphrase = "purple elephant dances quietly \(unique("chaos"))"
        _ = try await system.register(email, password: passphrase)
        let changed = try await system.send(.passwordChangeRequested(system.client.passwordChange(email: email, password: passphrase,
                                                                                                   newPassword: common[4])))
        #expect(reason(changed) == .passwordTooCommon)
        let code = try await system.code(for: email, .resetPassword)
        let reset = try await system.send(.passwordResetRequested(system.client.passwordReset(email: email, code: code, newPassword: common[5])))
        #expect(reason(reset) == .passwordTooCommon)
        guard case .tokenIssued = try await system.signIn(.password, email: email, secret: passphrase).0 else {
            Issue.record("a refused change changed the password")
            return
        }
    }

    // MARK: Point 7: codes for their purpose only

    /// The email grant of an address with an account takes its `login` code, and no `register`, `reset_password` or
    /// `change_email` code mailed to it; a `login` code does not reset a password.
    static func codesCountForTheirPurposeOnly(on system: some TestSystem) async throws {
        let email = unique("purposes") + "@example.com"
        let uid = try await system.register(email, password: "tram7 violet kettle")
        for purpose in [CodePurpose.register, .resetPassword, .changeEmail] {
            let code = try await system.code(for: email, purpose)
            #expect(reason(try await system.signIn(.email, email: email, secret: code).0) == .invalidCredentials, "a \(purpose) code signs in")
        }
        let login = try await system.code(for: email, .login)
        let reset = try await system.send(.passwordResetRequested(system.client.passwordReset(email: email, code: login,
                                                                                               newPassword: "quiet heron meadow lantern")))
        #expect(reason(reset) == .invalidCredentials, "a login code resets the password")
        let (signedIn, tokens) = try await system.signIn(.email, email: email, secret: login)
        guard case .tokenIssued = signedIn else { Issue.record("the login code does not sign in: \(signedIn)"); return }
        #expect(tokens?.uid == uid)
    }
}

extension TestSystem {
    /// The first message published on `topic` under `key`, with its headers (a command's signature among them).
    func message(on topic: String, key: String, timeout: Duration = .seconds(30)) async throws -> KafkaMessage {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let message = try await TopicSnapshot.read([topic], configuration: kafka).first(where: { $0.keyString == key }) { return message }
            guard ContinuousClock.now < deadline else { throw HarnessError("nothing published on \(topic) under \(key) within \(timeout)") }
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    /// Waits until the profile worker has answered `count` commands of the profile of `uid`, and the profile is `profile`.
    func waitForProfile(of uid: String, toBe profile: Profile?, afterCommands count: Int, timeout: Duration = .seconds(90)) async throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            let replies = try await TopicSnapshot.read([Topic.registrationReplies], configuration: kafka).compactMap { try? $0.event() }.filter {
                switch $0 {
                case .profileWritten(let reply): reply.uid == uid
                case .profileDeleted(let reply): reply.uid == uid
                default: false
                }
            }
            if replies.count >= count, try backends.profiles().profile(uid: uid) == profile { return }
            guard ContinuousClock.now < deadline else { throw HarnessError("the profile worker did not answer \(count) commands of \(uid) in time") }
            try await Task.sleep(for: .milliseconds(250))
        }
    }
}
