import Domain
import Foundation
import Accounts

/// The account worker's step for the operator's requests (`OperatorRequested` on `operator.requests`, which the worker
/// takes only signed with the operator role's event key): find, unlock, disable, enable, force a password reset and
/// delete the account of an email address, never by a write of the operator's own.
///
/// Each action that changes something commits with the ``AccountEvent`` announcing it, whose `actor` names the operator
/// (a find is announced too: who read which account); an action that finds the account already as it asks (disabling a
/// disabled one) changes and announces nothing. Disabling and forcing a reset end every session at once — every refresh
/// family revoked, the sessions' cut-off moved past every access token minted — and a deletion is the owner's deletion
/// saga, begun without re-authentication and noticed to the owner by mail (``notify(_:undeliverable:)``). The answer is
/// the account as it then stands (``AccountReport``), sealed to the request's reply key, and given once per request id.
public struct OperatorStep: EventHandler {
    public var accounts: any OperatorStore
    public var deletion: DeletionStep
    public var clock: @Sendable () -> Date

    public init(accounts: any OperatorStore, deletion: DeletionStep, clock: @escaping @Sendable () -> Date = Date.init) {
        self.accounts = accounts
        self.deletion = deletion
        self.clock = clock
    }

    public static let routes = StepRoutes.operatorActions

    private var tokens: any TokenStore { deletion.gate.tokens }

    public func handle(_ event: Event) throws -> [Event] {
        guard case .operatorRequested(let request) = event else { unrouted(event) }
        let id = request.requestId
        if let failure = RequestId.validate(id) { return [refused(id, failure)] }
        // A captured request replayed once its answer is forgotten, or issued by a clock far ahead, does nothing.
        guard request.isFresh(at: clock()) else {
            return [refused(id, Failure(.requestInvalid, "This request is stale: it was issued more than \(Int(OperatorRequested.maximumAge)) s "
                                                         + "ago (or more than \(Int(OperatorRequested.maximumLead)) s ahead); issue a new one."))]
        }
        guard OperatorRequested.isWellFormed(actor: request.actor) else {
            return [refused(id, Failure(.actorInvalid, "The actor must be 1–64 letters, digits, '.', '-' or '_'."))]
        }
        if let problem = request.locale.flatMap(MailLocale.problem(in:)) { return [refused(id, Failure(.localeInvalid, problem))] }
        guard deletion.seals.vault.isPublicKey(request.replyKey) else {
            return [refused(id, Failure(.replyKeyInvalid, "The reply key is not an X25519 public key in base64."))]
        }
        guard let account = try accounts.account(email: RegistrationRules.normalizedEmail(request.email)) else {
            return [refused(id, Failure(.accountUnknown, "No account has this email address."))]
        }
        let now = clock()
        let announce = { (kind: AccountEvent.Kind) in
            AccountEvent(kind, uid: account.uid, at: now, changed: kind == .passwordResetForced ? [.password] : [],
                         actor: AccountEvent.operatorActor(request.actor))
        }
        var saga: [Event] = []
        switch request.action {
        case .find:
            guard try accounts.apply(.none, to: account.uid, announcing: announce(.accountInspected)) else { return [inactive(id)] }
        case .unlock:
            guard try accounts.apply(.unlock, to: account.uid, announcing: announce(.accountUnlocked)) else { return [inactive(id)] }
        case .disable where account.status == .disabled:
            // Again, for a redelivery after a crash between the disabling's commit and this (idempotent).
            try tokens.revokeAll(uid: account.uid)
        case .enable where account.status == .active:
            break
        case .disable:
            let cutoff = account.sessionCutoff(changedAt: now)
            guard try accounts.apply(.disable(endingSessionsAt: cutoff), to: account.uid, announcing: announce(.accountDisabled)) else {
                return [inactive(id)]
            }
            try tokens.revokeAll(uid: account.uid)
        case .enable:
            guard try accounts.apply(.enable, to: account.uid, announcing: announce(.accountEnabled)) else { return [inactive(id)] }
        case .resetPassword:
            let cutoff = account.sessionCutoff(changedAt: now)
            guard try accounts.apply(.dropPassword(endingSessionsAt: cutoff), to: account.uid, announcing: announce(.passwordResetForced)) else {
                return [inactive(id)]
            }
            try tokens.revokeAll(uid: account.uid)
        case .delete:
            // A redelivery (the account already deleting) finds its deletion by the request id; another request finds none.
            switch try deletion.begin(deleting: account, requestId: id, at: now, announcing: announce(.accountDeletionOrdered)) {
            case .success(let events): saga = events
            case .failure(let failure) where failure.reason == .invalidCredentials: return [inactive(id)]
            case .failure(let failure): return [refused(id, failure)]
            }
        }
        let report = try self.report(of: account.uid, answering: request, at: now)
        guard let sealed = deletion.seals.vault.seal(report.sealedJSON, to: request.replyKey) else {
            return [refused(id, Failure(.replyKeyInvalid, "The reply key is not an X25519 public key in base64."))]
        }
        return saga + [.operatorAnswered(OperatorAnswered(requestId: id, action: request.action, sealedReport: sealed))]
    }

    /// The account `uid` as it stands after `request`'s action.
    private func report(of uid: String, answering request: OperatorRequested, at now: Date) throws -> AccountReport {
        guard let account = try accounts.account(uid: uid) else { throw StoreError(.transient, "account \(uid) vanished during its report") }
        let locks = try FailureKind.allCases.map { kind in
            try accounts.updateFailures(uid: uid, of: kind) { failures in failures.lockedUntil.flatMap { $0 > now ? $0 : nil } }
        }
        let sessions = try tokens.liveFamilies(uid: uid, at: now).map {
            SessionView(id: $0.id, createdAt: $0.createdAt, lastUsedAt: $0.lastUsedAt, clientId: $0.clientId, current: false)
        }
        return AccountReport(requestId: request.requestId, action: request.action, uid: uid, email: account.email,
                             state: account.status.rawValue, verified: account.isVerified, hasPassword: account.hasPassword,
                             passwordLockedUntil: locks[0], codeLockedUntil: locks[1], sessions: sessions)
    }

    /// Mails the owner the notice of a deletion the operator began, after its commit (as the owner's own deletion's).
    public func notify(_ event: Event, undeliverable: (StoreError) -> Void = { _ in }) throws {
        guard case .operatorRequested(let request) = event, request.action == .delete else { return }
        try deletion.notify(deletion: request.requestId, locale: request.locale, undeliverable: undeliverable)
    }

    private func inactive(_ requestId: String) -> Event {
        refused(requestId, Failure(.accountInactive, "The account is being registered or deleted: only find applies to it."))
    }

    private func refused(_ requestId: String, _ failure: Failure) -> Event {
        .operatorRefused(RequestRefusal(requestId: requestId, reason: failure.reason, message: failure.message))
    }
}
