import Courier
import Domain
import Foundation
import Accounts

/// The account worker's sign-in step (OAuth-style token requests with the grants `password`,
/// `email` and `refresh_token`).
///
/// Every credential failure (wrong, unknown, expired, used, locked out) gives the same
/// `invalid_credentials` answer. A valid code for an email without an account registers one
/// through the registration saga, under a registration id the server chooses (recorded with the
/// pending sign-in); the token is issued when its `RegistrationCompleted` arrives, for the uid of the
/// saga's own record and only if that saga is of the code's email. Tokens are only ever issued for a
/// uid read from the stores, never from an event.
///
/// An account made before registrations needed a code has an unproven mailbox until its first proof: its right
/// password signs in only with a `login` code mailed there (`email_unverified` without one), and a sign-in by code
/// proves it instead — then any password set before stops working (its owner sets one with a reset), every session
/// ends, and the owner is mailed a notice (``notify(_:)``): whoever registered the address before its owner keeps nothing.
public struct SignInStep: EventHandler {
    public var passwords: PasswordCheck
    public var codes: CodeVerifier
    public var profiles: any ProfileStore
    public var issuer: TokenIssuer
    public var registrations: any AccountOpening
    public var mailer: any Mailer
    public var mail: MailSettings
    public var clock: @Sendable () -> Date

    private var seals: SealOpener { registrations.seals }

    public init(passwords: PasswordCheck, codes: CodeVerifier, profiles: any ProfileStore, issuer: TokenIssuer,
                registrations: any AccountOpening, mailer: any Mailer, mail: MailSettings = .init(),
                clock: @escaping @Sendable () -> Date = Date.init) {
        self.passwords = passwords
        self.codes = codes
        self.profiles = profiles
        self.issuer = issuer
        self.registrations = registrations
        self.mailer = mailer
        self.mail = mail
        self.clock = clock
    }

    private var tokens: any TokenStore { issuer.tokens }

    /// Token requests, and the outcomes of the registrations that sign-ins by email code started.
    public static let routes = StepRoutes.signIn

    /// The letters it mails: the notice of a first proof of the mailbox by a sign-in with a code.
    public static let letters = [ProofNotice.letter]

    public func handle(_ event: Event) throws -> [Event] {
        switch event {
        case .tokenRequested(let request):
            return try signIn(request)
        case .registrationCompleted(let completed):
            guard let pending = try tokens.pending(registrationId: completed.registrationId) else { return [] }
            let saga = try saga(of: pending, reported: event)
            guard completed.sealedResult == saga.sealedResult else {
                throw UntrustedEvent.replyMismatch("RegistrationCompleted for registration \(saga.registrationId) is not the saga's outcome")
            }
            return [try grant(uid: saga.uid, requestId: pending.requestId, replyKey: pending.replyKey, clientId: pending.clientId,
                              accountCreated: true)]
        case .registrationFailed:
            guard let pending = try tokens.pending(registrationId: event.registrationId) else { return [] }
            // The saga's own outcome, not the event's words.
            guard case .registrationFailed(let recorded)? = registrations.outcome(of: try saga(of: pending, reported: event)) else { return [] }
            return [refused(pending.requestId, Failure(recorded.reason, recorded.message))]
        default:
            unrouted(event)
        }
    }

    /// A token request under a request id answered already: a refresh token presented so, with another reply key
    /// than the request that rotated it, is a reuse and revokes its family (the request still gets only its first
    /// answer, which is sealed to the first reply key). Anything else changes nothing.
    public func repeated(_ event: Event) throws {
        guard case .tokenRequested(let request) = event, request.grantType == .refreshToken,
              passwords.vault.isPublicKey(request.replyKey) else { return }
        let context = SealContext(requestId: request.requestId, email: request.email, replyKey: request.replyKey)
        guard case .opened(let secrets) = try seals.open([(request.sealedCredential, .refreshToken)], in: context, on: Topic.authRequests,
                                                         claiming: false),
              let presented = try tokens.token(digest: issuer.minter.digest(of: secrets[0])),
              let account = try passwords.accounts.account(uid: presented.uid) else { return }
        let now = clock()
        let next = issuer.refreshToken(account: account, family: presented.family, requestId: request.requestId, at: now)
        _ = try tokens.rotate(digest: presented.digest, to: next.record, replyKey: request.replyKey) { token in
            // Never a rotation: the request was answered; only a reuse is acted on.
            RotationDecision.on(token, requestId: request.requestId, replyKey: request.replyKey, at: now) == .revokeFamily
                ? .revokeFamily : .refuse(.reused)
        }
    }

    private func signIn(_ request: TokenRequested) throws -> [Event] {
        if let failure = RequestId.validate(request.requestId) { return [refused(request.requestId, failure)] }
        guard passwords.vault.isPublicKey(request.replyKey) else {
            return [refused(request.requestId, Failure(.replyKeyInvalid, "The reply key is not an X25519 public key in base64."))]
        }
        let context = SealContext(requestId: request.requestId, email: request.email, replyKey: request.replyKey)
        let code = request.grantType == .password ? request.sealedCode : nil
        let secrets: [String]
        switch try seals.open([(request.sealedCredential, request.grantType.sealPurpose)] + (code.map { [($0, .code)] } ?? []),
                              in: context, on: Topic.authRequests) {
        case .opened(let opened): secrets = opened
        case .unsealable:
            return [refused(request.requestId, Failure(.credentialUnsealable, "The credential could not be unsealed; seal it with the account worker's public key."))]
        case .refused: return [invalid(request)]
        }
        let secret = secrets[0]
        let now = clock()
        let email = RegistrationRules.normalizedEmail(request.email ?? "")
        switch request.grantType {
        case .password:
            let outcome = try passwords.authenticate(email: email, password: secret, at: now)
            guard let account = outcome.account else {
                return [outcome == .disabled ? refused(request.requestId, LoginGuard.disabled) : invalid(request)]
            }
            if !account.isVerified {
                // The password is right, but whoever set it may never have read the mailbox: a login code mailed there
                // proves it (the password stays, its owner knew it), once.
                guard secrets.count > 1 else {
                    return [refused(request.requestId, Failure(.emailUnverified, "This account's email address was never confirmed: "
                                                                   + "request a login code and sign in with the password and the code, once."))]
                }
                guard try passwords.verify(code: secrets[1], with: codes, for: account, email: email, purposes: [.login],
                                           requestId: request.requestId, replyKey: request.replyKey, at: now) == nil else {
                    return [invalid(request)]
                }
                try prove(account, by: request.requestId, droppingPassword: false, at: now)
            }
            return [try grant(uid: account.uid, request, accountCreated: false)]
        case .email:
            return try signIn(request, email: email, code: secret, at: now)
        case .refreshToken:
            return [try refresh(request, token: secret, at: now)]
        }
    }

    private func signIn(_ request: TokenRequested, email: String, code: String, at now: Date) throws -> [Event] {
        let account = try passwords.accounts.account(email: email)
        // A password lockout does not apply: the code proves control of the mailbox. Wrong codes have their own count.
        // A `login` code signs in; a `register` code only signs up an address that has no account yet (a pending one is
        // the sign-up's own, met again on redelivery, or another registration in flight, refused below).
        let rejection = try passwords.verify(code: code, with: codes, for: account, email: email,
                                             purposes: [.active, .disabled].contains(account?.status) ? [.login] : [.login, .register],
                                             requestId: request.requestId, replyKey: request.replyKey, at: now)
        guard rejection == nil else { return [invalid(request)] }
        switch account {
        case let account? where account.status == .disabled:
            return [refused(request.requestId, LoginGuard.disabled)]
        case let account? where account.status == .active:
            // The first proof of an account made before registrations needed a code comes through this sign-in: the
            // password someone set without the mailbox stops working.
            if !account.isVerified { try prove(account, by: request.requestId, droppingPassword: true, at: now) }
            return [try grant(uid: account.uid, request, accountCreated: false)]
        default:
            // A redelivered request finds its own pending sign-in and registration again; a new one
            // registers under a fresh id, unless another registration of this email is in flight.
            let fresh = PendingSignIn(requestId: request.requestId, registrationId: UUID().uuidString.lowercased(),
                                      email: email, replyKey: request.replyKey, createdAt: now, clientId: request.clientId)
            let recorded = try tokens.pending(requestId: request.requestId) ?? (account == nil ? try tokens.recordPending(fresh) : nil)
            guard let pending = recorded, pending.email == email,
                  account == nil || account?.registrationId == pending.registrationId,
                  try registrations.accounts.saga(pending.registrationId).map({ $0.email == email }) ?? true else {
                // Another registration of this email is in flight (pending accounts never sign in), or this
                // request id signed another email in.
                return [invalid(request)]
            }
            return try registrations.startWithoutPassword(registrationId: pending.registrationId, email: email, replyKey: request.replyKey)
        }
    }

    /// Records the first proof of `account`'s mailbox by request `requestId`: every session issued before ends (and
    /// every refresh-token family is revoked), and with `droppingPassword` the password set before it stops working.
    private func prove(_ account: Account, by requestId: String, droppingPassword: Bool, at now: Date) throws {
        try passwords.accounts.update(uid: account.uid, applying: AccountUpdate(
            passwordHash: droppingPassword ? "" : nil, endsSessionsAt: account.sessionCutoff(changedAt: now), provesMailboxAt: now,
            provenBy: droppingPassword ? requestId : nil))
        try tokens.revokeAll(uid: account.uid)
    }

    /// Mails the owner the notice of a first proof that a sign-in by code made (the password dropped, the sessions
    /// ended), once `event`'s answer is committed: run after the commit for every answer of the request (a notice sent
    /// again has the same Message-ID), so none announces a proof that was rolled back.
    public func notify(_ event: Event) throws {
        guard case .tokenRequested(let request) = event, request.grantType == .email,
              let account = try passwords.accounts.account(email: RegistrationRules.normalizedEmail(request.email ?? "")),
              account.verifiedBy == request.requestId else { return }
        try mailer.send(ProofNotice.message(to: account.email, requestId: request.requestId, settings: mail, date: account.verifiedAt ?? clock()))
    }

    /// The saga the pending sign-in started, which `outcome` reports: it must be of the sign-in's email
    /// and at `stage`, or the outcome is not the saga's (forged, or published before its time).
    private func saga(of pending: PendingSignIn, reported outcome: Event) throws -> SagaRecord {
        guard let saga = try registrations.accounts.saga(pending.registrationId) else {
            throw UntrustedEvent.unknownSaga("\(outcome.type) for registration \(pending.registrationId), which was never started")
        }
        // A saga answered at its deadline gives its outcome while it still undoes its avatar (``AccountOpening/outcome(of:)``).
        guard saga.email == pending.email, registrations.outcome(of: saga)?.kind == outcome.kind else {
            throw UntrustedEvent.replyMismatch("\(outcome.type) for registration \(saga.registrationId), whose saga is \(saga.stage.rawValue)")
        }
        return saga
    }

    private func refresh(_ request: TokenRequested, token: String, at now: Date) throws -> Event {
        guard let presented = try tokens.token(digest: issuer.minter.digest(of: token)) else { return invalid(request) }
        // A token revoked, expired or issued before the account's sessions were ended (a credential change, a disable)
        // counts no more — and learns nothing of the account's state, which only a live session is told.
        if presented.familyRevoked || now >= presented.expiresAt { return invalid(request) }
        if let account = try passwords.accounts.account(uid: presented.uid) {
            guard account.admitsSession(issuedAt: presented.issuedAt) else { return invalid(request) }
            if account.status == .disabled { return refused(request.requestId, LoginGuard.disabled) }
        }
        guard let (account, _) = try loginGuard.admitted(uid: presented.uid) else { return refused(request.requestId, LoginGuard.refusal) }
        let next = issuer.refreshToken(account: account, family: presented.family, requestId: request.requestId, at: now)
        let decision = try tokens.rotate(digest: presented.digest, to: next.record, replyKey: request.replyKey) {
            RotationDecision.on($0, requestId: request.requestId, replyKey: request.replyKey, at: now)
        }
        guard decision == .rotate else { return invalid(request) }
        return try issuer.answer(account: account, session: presented.family, requestId: request.requestId, replyKey: request.replyKey,
                                 refreshToken: next.token, accountCreated: false, at: now)
    }

    /// Tokens for `uid` answering `request`, if its profile passes the guard.
    private func grant(uid: String, _ request: TokenRequested, accountCreated: Bool) throws -> Event {
        try grant(uid: uid, requestId: request.requestId, replyKey: request.replyKey, clientId: request.clientId, accountCreated: accountCreated)
    }

    /// Tokens for `uid` if its profile passes the guard.
    private func grant(uid: String, requestId: String, replyKey: String, clientId: String?, accountCreated: Bool) throws -> Event {
        guard let (account, _) = try loginGuard.admitted(uid: uid) else { return refused(requestId, LoginGuard.refusal) }
        return try issuer.signIn(account: account, requestId: requestId, replyKey: replyKey, clientId: clientId, accountCreated: accountCreated,
                                 at: clock())
    }

    private var loginGuard: LoginGuard { LoginGuard(accounts: passwords.accounts, profiles: profiles) }

    private func invalid(_ request: TokenRequested) -> Event {
        refused(request.requestId, Failure(.invalidCredentials, "The email, password, code or token is not valid."))
    }

    private func refused(_ requestId: String, _ failure: Failure) -> Event {
        .tokenRefused(RequestRefusal(requestId: requestId, reason: failure.reason, message: failure.message))
    }
}
