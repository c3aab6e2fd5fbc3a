import Courier
import Domain
import Foundation
import Accounts

/// The account worker's account-change step: password change (re-authenticated), password reset
/// (by code), and the email change saga (re-authenticated, new address proven by code). A change re-authenticated by
/// password needs an account whose mailbox is proven (`email_unverified` otherwise); a reset proves it.
///
/// Each change is recorded with its request id in the same transaction as its account update, so a
/// redelivered request repeats the answer (and the idempotent side effects) and changes nothing twice.
public struct AccountChangeStep: EventHandler {
    public var accounts: any AccountChangeStore
    public var passwords: PasswordCheck
    public var codes: CodeVerifier
    public var tokens: any TokenStore
    public var mailer: any Mailer
    public var mail: MailSettings
    public var seals: SealOpener
    public var rules: RegistrationRules
    public var clock: @Sendable () -> Date
    /// How long each email change in flight has made no progress (the deadline sweep's measure).
    public var progress: ProgressWatch

    public init(accounts: any AccountChangeStore, passwords: PasswordCheck, codes: CodeVerifier, tokens: any TokenStore,
                mailer: any Mailer, mail: MailSettings = .init(), seals: SealOpener, rules: RegistrationRules = .init(),
                clock: @escaping @Sendable () -> Date = Date.init, progress: ProgressWatch = ProgressWatch()) {
        self.seals = seals
        self.progress = progress
        self.accounts = accounts
        self.passwords = passwords
        self.codes = codes
        self.tokens = tokens
        self.mailer = mailer
        self.mail = mail
        self.rules = rules
        self.clock = clock
    }

    public static let routes = StepRoutes.accountChange

    /// The letters it mails: the notices of completed changes.
    public static let letters = Notices.letters

    public func handle(_ event: Event) throws -> [Event] {
        switch event {
        case .passwordChangeRequested(let request):
            return try unlessRecorded(request.requestId, locale: request.locale) { try changePassword(request) }
        case .passwordResetRequested(let request):
            return try unlessRecorded(request.requestId, locale: request.locale) { try resetPassword(request) }
        case .emailChangeRequested(let request):
            return try unlessRecorded(request.requestId, locale: request.locale) { try changeEmail(request) }
        case .profileEmailUpdated(let reply):
            return try advance(on: event, uid: reply.uid)
        case .profileEmailRejected(let reply):
            return try advance(on: event, uid: reply.uid)
        case .profileEmailWaiting(let heartbeat):
            return try emailChanges.heard(heartbeat.requestId, at: AccountChangeStage.awaitingProfile.rawValue,
                                          missing: { unknownChange(event) }, check: { try mismatch(event, uid: heartbeat.uid, $0) })
        default:
            unrouted(event)
        }
    }

    /// Moves the email change of the profile worker's reply. A reply for no change, or for another
    /// uid than the change's, changes nothing: it is thrown as an `UntrustedEvent` (dead-lettered). The profile
    /// worker's heartbeat (`ProfileEmailWaiting`) is refused alike; else it counts as progress of every change waiting
    /// for its profile.
    private func advance(on reply: Event, uid: String) throws -> [Event] {
        try emailChanges.advance(reply.key, on: reply, missing: { unknownChange(reply) }, check: { try mismatch(reply, uid: uid, $0) }) { change, now in
            EmailChangeSaga.on(reply, change: change, at: now)
        }
    }

    private func unknownChange(_ reply: Event) -> any Error {
        UntrustedEvent.unknownSaga("\(reply.type) for request \(reply.key), which changed no account")
    }

    private func mismatch(_ reply: Event, uid: String, _ change: AccountChangeRecord) throws {
        guard uid == change.uid else {
            throw UntrustedEvent.replyMismatch("\(reply.type) for request \(reply.key) names another uid than the change's")
        }
    }

    /// Undoes every email change that has waited for its profile for `deadline` without progress, as this process's
    /// monotonic clock measures it.
    public func expireChanges(stalledFor deadline: Duration) throws -> [Event] {
        try emailChanges.expire(stalledFor: deadline, EmailChangeSaga.expire)
    }

    /// The engine driving the email change saga over the account store: a record and its account update commit
    /// together. Only this step moves a change, one event of its request at a time (one partition), so a save never finds
    /// the record moved by another writer. Every move of a change rewrites its `updatedAt`.
    private var emailChanges: SagaEngine<EmailChangeSaga> {
        let log = StoreSagaLog<AccountChangeRecord, AccountUpdate>(
            record: { [accounts] key throws(StoreError) in try accounts.change(requestId: key) },
            save: { [accounts] record, update, effects throws(StoreError) in try accounts.save(record, applying: update, keeping: effects) },
            waiting: { [accounts] () throws(StoreError) in try accounts.changes(in: .awaitingProfile, updatedBefore: .distantFuture) },
            mark: { ($0.requestId, "\($0.updatedAt.timeIntervalSince1970)", $0.stage.rawValue) })
        return SagaEngine(log: log, clock: clock, progress: progress)
    }

    private func unlessRecorded(_ requestId: String, locale: String?, _ body: () throws -> [Event]) throws -> [Event] {
        if let failure = RequestId.validate(requestId) { return [failed(requestId, failure)] }
        if let problem = locale.flatMap(MailLocale.problem(in:)) { return [failed(requestId, Failure(.localeInvalid, problem))] }
        if let change = try accounts.change(requestId: requestId) { return Self.events(answering: change) }
        return try body()
    }

    /// What a request under the id of the recorded `change` is answered: the change's events (its answer or command); a
    /// sign-out everywhere is recorded here too (by `SessionStep`), under the id of a request on another topic: refused.
    static func events(answering change: AccountChangeRecord) -> [Event] {
        guard change.kind != .signOutEverywhere else {
            return [.accountChangeFailed(RequestRefusal(requestId: change.requestId, reason: .requestInvalid,
                                                        message: "This request id was used by another request."))]
        }
        return EmailChangeSaga.events(of: change)
    }

    private func changePassword(_ request: PasswordChangeRequested) throws -> [Event] {
        let email = RegistrationRules.normalizedEmail(request.email)
        let secrets = try open([(request.sealedPassword, .reauthentication), (request.sealedNewPassword, .newPassword)],
                               of: request.requestId, email: request.email, replyKey: request.replyKey)
        guard case .opened(let opened) = secrets else { return [refusal(secrets, request.requestId)] }
        let (old, new) = (opened[0], opened[1])
        if let failure = rules.validate(password: new, email: email) { return [failed(request.requestId, failure)] }
        // Hashed before any write, so never inside the transaction of a unit of work.
        let hash = try passwords.vault.hash(new)
        let now = clock()
        let outcome = try passwords.authenticate(email: email, password: old, at: now)
        guard let account = outcome.account else { return [refusal(outcome, request.requestId)] }
        guard account.isVerified else { return [unverified(request.requestId)] }
        return try begin(.changePassword, request.requestId, account, newEmail: account.email,
                         update: AccountUpdate(passwordHash: hash, endsSessionsAt: account.sessionCutoff(changedAt: now),
                                              authenticatedAgainst: account.passwordHash))
    }

    private func resetPassword(_ request: PasswordResetRequested) throws -> [Event] {
        let email = RegistrationRules.normalizedEmail(request.email)
        let secrets = try open([(request.sealedCode, .code), (request.sealedNewPassword, .newPassword)],
                               of: request.requestId, email: request.email, replyKey: request.replyKey)
        guard case .opened(let opened) = secrets else { return [refusal(secrets, request.requestId)] }
        let (code, new) = (opened[0], opened[1])
        if let failure = rules.validate(password: new, email: email) { return [failed(request.requestId, failure)] }
        let hash = try passwords.vault.hash(new)
        let now = clock()
        let account = try accounts.account(email: email)
        let rejection = try passwords.verify(code: code, with: codes, for: account, email: email, purposes: [.resetPassword],
                                             requestId: request.requestId, at: now)
        guard rejection == nil, let account, account.status == .active else {
            return [rejection == nil && account?.status == .disabled ? failed(request.requestId, LoginGuard.disabled) : invalid(request.requestId)]
        }
        // The code proves the mailbox: an account made before registrations needed one is proven now.
        return try begin(.resetPassword, request.requestId, account, newEmail: account.email,
                         update: AccountUpdate(passwordHash: hash, endsSessionsAt: account.sessionCutoff(changedAt: now), provesMailboxAt: now,
                                              authenticatedAgainst: account.passwordHash))
    }

    private func changeEmail(_ request: EmailChangeRequested) throws -> [Event] {
        let email = RegistrationRules.normalizedEmail(request.email)
        let newEmail = RegistrationRules.normalizedEmail(request.newEmail)
        let secrets = try open([(request.sealedPassword, .reauthentication), (request.sealedCode, .code)],
                               of: request.requestId, email: request.email, replyKey: request.replyKey)
        guard case .opened(let opened) = secrets else { return [refusal(secrets, request.requestId)] }
        let (password, code) = (opened[0], opened[1])
        if let failure = rules.validate(email: newEmail) { return [failed(request.requestId, failure)] }
        if newEmail == email { return [failed(request.requestId, Failure(.emailUnchanged, "The new email address is the current one."))] }
        let now = clock()
        let outcome = try passwords.authenticate(email: email, password: password, at: now)
        guard let account = outcome.account else { return [refusal(outcome, request.requestId)] }
        guard account.isVerified else { return [unverified(request.requestId)] }
        guard try passwords.verify(code: code, with: codes, for: account, email: newEmail, purposes: [.changeEmail],
                                   requestId: request.requestId, at: now) == nil else {
            return [invalid(request.requestId)]
        }
        return try begin(.changeEmail, request.requestId, account, newEmail: newEmail,
                         update: AccountUpdate(email: newEmail, endsSessionsAt: account.sessionCutoff(changedAt: now), provesMailboxAt: now,
                                              authenticatedAgainst: account.passwordHash))
    }

    /// The refusal of a re-authentication that failed: `account_disabled` only for the right password of a disabled
    /// account, else `invalid_credentials`.
    private func refusal(_ outcome: PasswordCheck.Outcome, _ requestId: String) -> Event {
        outcome == .disabled ? failed(requestId, LoginGuard.disabled) : invalid(requestId)
    }

    /// Records the change with its account update — which ends every session issued before it: the account's
    /// not-before time, and every refresh-token family revoked in the same unit of work — then performs what its
    /// stage asks for.
    private func begin(_ kind: AccountChangeKind, _ requestId: String, _ account: Account, newEmail: String,
                       update: AccountUpdate) throws -> [Event] {
        let record = AccountChangeRecord(requestId: requestId, uid: account.uid, kind: kind, oldEmail: account.email,
                                         newEmail: newEmail, stage: kind == .changeEmail ? .awaitingProfile : .completed,
                                         updatedAt: clock())
        switch try accounts.begin(record, applying: update) {
        case .started(let started):
            try tokens.revokeAll(uid: started.uid)
            return EmailChangeSaga.events(of: started)
        case .existing(let existing): return EmailChangeSaga.events(of: existing)
        case .emailTaken: return [failed(requestId, Failure(.emailTaken, "This email address is already in use."))]
        case .credentialsChanged:
            // An operator disabled the account or reset its password after this request was authenticated.
            return [try accounts.account(uid: account.uid)?.status == .disabled ? failed(requestId, LoginGuard.disabled) : invalid(requestId)]
        }
    }

    /// Mails the account's (old) address the notice of the change `event` is about, once the change
    /// is committed as completed: run after the commit, for the first answer and every repeat (a
    /// notice sent again has the same Message-ID), so no mail waits inside a transaction or announces
    /// a change that was rolled back.
    public func notify(_ event: Event) throws {
        guard let change = try accounts.change(requestId: event.key), change.stage == .completed else { return }
        try mailer.send(Notices.message(of: change, locale: event.locale, settings: mail, date: clock()))
    }

    /// The seals of a request, bound to its id, email and reply key.
    private func open(_ seals: [(sealed: String, purpose: SealedSecret.Purpose)], of requestId: String, email: String,
                      replyKey: String) throws -> SealOpener.Outcome {
        try self.seals.open(seals, in: SealContext(requestId: requestId, email: email, replyKey: replyKey), on: Topic.accountRequests)
    }

    /// The answer to seals that did not open: unsealable, or refused like a wrong credential.
    private func refusal(_ outcome: SealOpener.Outcome, _ requestId: String) -> Event {
        guard outcome == .unsealable else { return invalid(requestId) }
        return failed(requestId, Failure(.credentialUnsealable, "A secret could not be unsealed; seal it with the account worker's public key."))
    }

    /// The refusal of a change re-authenticated by the right password of an account whose mailbox was never proven:
    /// whoever set that password may not own the address (a reset by code, or one sign-in with a code, proves it).
    private func unverified(_ requestId: String) -> Event {
        failed(requestId, Failure(.emailUnverified, "This account's email address was never confirmed: sign in once with the password "
                                                    + "and a login code, or reset the password, then change it."))
    }

    private func invalid(_ requestId: String) -> Event {
        failed(requestId, Failure(.invalidCredentials, "The email, password or code is not valid."))
    }

    private func failed(_ requestId: String, _ failure: Failure) -> Event {
        .accountChangeFailed(RequestRefusal(requestId: requestId, reason: failure.reason, message: failure.message))
    }
}
