import Courier
import Domain
import Foundation
import Accounts

/// The account worker's sessions step: sign-out and revocation (`SignOutRequested`) and the list of an account's live
/// sessions (`SessionsRequested`), on `auth.requests`.
///
/// A session is a refresh-token family. A revocation (RFC 7009) ends the session of the token it carries, a refresh
/// token's family or the family an access token's `sid` names, and is answered `SignedOut` whatever the token was
/// (§2.2: unknown, expired or forged alike). Every other request acts for the account of a Bearer access token that
/// still counts (``SessionGate``), only ever on that account's own sessions: its own session, another of its sessions
/// by id (`session_unknown` for an id it does not have, whoever's it is), or all of them — every family revoked and the
/// account's sessions cut-off moved, so that every access token minted before is refused too, recorded as an account
/// change whose notice is mailed after the commit (``notify(_:)``).
public struct SessionStep: EventHandler {
    public var gate: SessionGate
    public var accounts: any AccountChangeStore
    public var minter: any TokenMinter
    public var seals: SealOpener
    public var mailer: any Mailer
    public var mail: MailSettings
    public var clock: @Sendable () -> Date

    public init(gate: SessionGate, accounts: any AccountChangeStore, minter: any TokenMinter, seals: SealOpener, mailer: any Mailer,
                mail: MailSettings = .init(), clock: @escaping @Sendable () -> Date = Date.init) {
        self.gate = gate
        self.accounts = accounts
        self.minter = minter
        self.seals = seals
        self.mailer = mailer
        self.mail = mail
        self.clock = clock
    }

    public static let routes = StepRoutes.sessions

    private var tokens: any TokenStore { gate.tokens }

    public func handle(_ event: Event) throws -> [Event] {
        switch event {
        case .signOutRequested(let request):
            return [try signOut(request)]
        case .sessionsRequested(let request):
            return [try list(request)]
        default:
            unrouted(event)
        }
    }

    private func signOut(_ request: SignOutRequested) throws -> Event {
        let id = request.requestId
        if let problem = request.locale.flatMap(MailLocale.problem(in:)) { return refused(id, Failure(.localeInvalid, problem)) }
        if request.sessionId != nil, request.scope != .session {
            return refused(id, Failure(.requestInvalid, "sessionId names a session to end with the scope session only."))
        }
        let token: String
        switch try openToken(request.sealedToken, for: request.scope.sealPurpose, id, request.replyKey, sessionId: request.sessionId) {
        case .success(let opened): token = opened
        case .failure(let refusal) where refusal.reason == .invalidCredentials && request.scope == .revocation:
            return .signedOut(SignedOut(requestId: id))
        case .failure(let refusal): return refused(id, refusal)
        }
        let now = clock()
        if request.scope == .revocation {
            if let family = try session(of: token, at: now) { try tokens.revoke(family: family.id, of: family.uid) }
            return .signedOut(SignedOut(requestId: id))
        }
        guard let caller = try gate.caller(of: token, at: now) else { return invalid(id) }
        if request.scope == .everywhere { return try signOutEverywhere(caller.account, requestId: id, at: now) }
        guard let session = request.sessionId ?? caller.session, try tokens.revoke(family: session, of: caller.account.uid) else {
            return refused(id, Failure(.sessionUnknown, request.sessionId == nil
                ? "This access token names no session (it was minted before tokens named theirs): revoke its refresh token or sign out everywhere."
                : "This account has no session with this id."))
        }
        return .signedOut(SignedOut(requestId: id))
    }

    /// The session a revoked token belongs to, if it is one of ours: a stored refresh token's family, or the family a
    /// verified access token names.
    private func session(of token: String, at now: Date) throws -> TokenFamily? {
        if let refresh = try tokens.token(digest: minter.digest(of: token)) { return try tokens.family(refresh.family) }
        guard let session = gate.accessTokens.subject(of: token, at: now)?.session else { return nil }
        return try tokens.family(session)
    }

    /// Ends every session of `account` through its sessions cut-off (``Account/sessionCutoff(changedAt:)``: every refresh
    /// and access token minted so far is refused) and by revoking every family, in one transaction with the record of
    /// the change, which its notice is mailed from (a redelivery finds the record and ends nothing twice).
    private func signOutEverywhere(_ account: Account, requestId: String, at now: Date) throws -> Event {
        let record = AccountChangeRecord(requestId: requestId, uid: account.uid, kind: .signOutEverywhere, oldEmail: account.email,
                                         newEmail: account.email, stage: .completed, updatedAt: now)
        switch try accounts.begin(record, applying: AccountUpdate(endsSessionsAt: account.sessionCutoff(changedAt: now))) {
        case .started:
            try tokens.revokeAll(uid: account.uid)
        case .existing(let existing) where existing.kind == .signOutEverywhere && existing.uid == account.uid:
            break
        case .existing, .emailTaken, .credentialsChanged: // neither of the last two is possible without an email or a hash to keep
            return refused(requestId, Failure(.requestInvalid, "This request id was used by another request."))
        }
        return .signedOut(SignedOut(requestId: requestId))
    }

    private func list(_ request: BearerRequest) throws -> Event {
        let id = request.requestId
        let token: String
        switch try openToken(request.sealedAccessToken, for: .accessToken, id, request.replyKey) {
        case .success(let opened): token = opened
        case .failure(let refusal): return refused(id, refusal)
        }
        let now = clock()
        guard let caller = try gate.caller(of: token, at: now) else { return invalid(id) }
        let sessions = try tokens.liveFamilies(uid: caller.account.uid, at: now).map {
            SessionView(id: $0.id, createdAt: $0.createdAt, lastUsedAt: $0.lastUsedAt, clientId: $0.clientId, current: $0.id == caller.session)
        }
        let list = SessionList(requestId: id, uid: caller.account.uid, sessions: sessions).sealedJSON
        guard let sealed = seals.vault.seal(list, to: request.replyKey) else { return refused(id, SealOpener.replyKeyInvalid) }
        return .sessionsAnswered(SessionsAnswered(requestId: id, sealedSessions: sealed))
    }

    /// The token sealed for `purpose` in the request `requestId` answered to `replyKey`, or the refusal of the request.
    private func openToken(_ sealed: String, for purpose: SealedSecret.Purpose, _ requestId: String, _ replyKey: String,
                           sessionId: String? = nil) throws -> Result<String, Failure> {
        try seals.openToken(sealed, for: purpose, requestId: requestId, replyKey: replyKey, sessionId: sessionId,
                            on: Topic.authRequests, refusal: Self.invalidToken)
    }

    /// Mails the account the notice of a sign-out everywhere once it is committed: run after the commit for every
    /// answer of the request (a notice sent again has the same Message-ID).
    public func notify(_ event: Event) throws {
        guard case .signOutRequested(let request) = event, request.scope == .everywhere,
              let change = try accounts.change(requestId: request.requestId), change.kind == .signOutEverywhere else { return }
        try mailer.send(Notices.message(of: change, locale: request.locale, settings: mail, date: change.updatedAt))
    }

    private static let invalidToken = Failure(.invalidCredentials, "The token is missing, malformed, expired, revoked or not ours.")

    private func invalid(_ requestId: String) -> Event { refused(requestId, Self.invalidToken) }

    private func refused(_ requestId: String, _ failure: Failure) -> Event {
        .tokenRefused(RequestRefusal(requestId: requestId, reason: failure.reason, message: failure.message))
    }
}
