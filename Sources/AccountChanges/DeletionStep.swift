import Courier
import Domain
import Foundation
import Registration
import SignIn
import Verification

/// The account worker's account deletion step (`AccountDeletionRequested`, `DELETE /me`; App Store Review Guideline
/// 5.1.1(v), GDPR Art. 17), which drives the deletion saga (``DeletionSaga``) through the one saga engine.
///
/// The request acts for the account of a Bearer access token that still counts (``SessionGate``) and whose session signed
/// in within ``reauthenticationWindow`` (`reauthentication_required` otherwise), only ever on that account. It begins the
/// deletion in one transaction — the record, the account marked `deleting`, its sessions' cut-off — then revokes every
/// refresh-token family, forgets the codes mailed to its address and asks the image worker to erase the avatar; the
/// profile worker's erasure follows, then the account and every row naming it go, its refresh tokens are forgotten, and
/// `AccountDeleted` answers the request. The owner's address is mailed a notice once the deletion is begun
/// (``notify(_:)``), and is free to register again once it completed.
public struct DeletionStep: EventHandler {
    public var gate: SessionGate
    public var accounts: any DeletionStore
    public var seals: SealOpener
    /// The one-time codes, in the account database: those of the account's address are forgotten as its deletion begins.
    public var codes: any CodeStore
    public var mailer: any Mailer
    public var mail: MailSettings
    /// Seconds after its sign-in that a session may delete its account.
    public var reauthenticationWindow: Double
    public var clock: @Sendable () -> Date

    public init(gate: SessionGate, accounts: any DeletionStore, seals: SealOpener, codes: any CodeStore, mailer: any Mailer,
                mail: MailSettings = .init(),
                reauthenticationWindow: Double = ExportStep.defaultReauthenticationWindow, clock: @escaping @Sendable () -> Date = Date.init) {
        self.gate = gate
        self.accounts = accounts
        self.seals = seals
        self.codes = codes
        self.mailer = mailer
        self.mail = mail
        self.reauthenticationWindow = reauthenticationWindow
        self.clock = clock
    }

    public static let routes = StepRoutes.deletion

    /// The notice it mails.
    public static let letters = [Self.notice]
    static let notice = Letter("account_deleted", kind: "notice")

    private var tokens: any TokenStore { gate.tokens }

    public func handle(_ event: Event) throws -> [Event] {
        switch event {
        case .accountDeletionRequested(let request):
            return try begin(request)
        case .avatarErased, .profileErased:
            return try advance(on: event)
        default:
            unrouted(event)
        }
    }

    /// Moves every deletion that has waited for a step since before `deadline` on, by sending its step again.
    public func resumeDeletions(notUpdatedSince deadline: Date) throws -> [Event] {
        try deletions.expire(movedBefore: deadline, DeletionSaga.expire)
    }

    /// The engine driving the saga over the account store; once a deletion completed (again on a redelivery), the
    /// account's refresh tokens are forgotten.
    private var deletions: SagaEngine<DeletionSaga> {
        SagaEngine(log: DeletionLog(accounts: accounts), clock: clock, afterCommit: [{ [tokens] deletion, _ in
            if deletion.stage == .completed { try tokens.forget(uid: deletion.uid) }
        }])
    }

    private func begin(_ request: AccountDeletionRequested) throws -> [Event] {
        let id = request.requestId
        if let failure = RequestId.validate(id) { return [refused(id, failure)] }
        if let problem = request.locale.flatMap(MailLocale.problem(in:)) { return [refused(id, Failure(.localeInvalid, problem))] }
        if let deletion = try accounts.deletion(requestId: id) { return DeletionSaga.events(of: deletion) }
        guard seals.vault.isPublicKey(request.replyKey) else {
            return [refused(id, Failure(.replyKeyInvalid, "The reply key is not an X25519 public key in base64."))]
        }
        let token: String
        switch try seals.open([(request.sealedAccessToken, .deleteAccount)], in: SealContext(requestId: id, email: nil, replyKey: request.replyKey),
                              on: Topic.accountRequests) {
        case .opened(let secrets): token = secrets[0]
        case .unsealable:
            return [refused(id, Failure(.credentialUnsealable, "The token could not be unsealed; seal it with the account worker's public key."))]
        case .refused: return [invalid(id)]
        }
        let now = clock()
        guard let caller = try gate.caller(of: token, at: now), caller.account.status == .active else { return [invalid(id)] }
        guard try gate.signedInRecently(caller, within: reauthenticationWindow, at: now) else {
            return [refused(id, Failure(.reauthenticationRequired, "Sign in again (password or emailed code) and delete with the new access "
                                                                  + "token within \(Int(reauthenticationWindow)) s."))]
        }
        let account = caller.account
        let imageId = try accounts.saga(account.registrationId).map(\.imageId).flatMap { $0.isEmpty ? nil : $0 }
        let record = DeletionRecord(requestId: id, uid: account.uid, email: account.email, imageId: imageId,
                                    stage: DeletionSaga.firstStage(imageId: imageId), updatedAt: now)
        switch try accounts.begin(record, endingSessionsAt: account.sessionCutoff(changedAt: now)) {
        case .started(let started):
            try endSessionsAndCodes(of: started)
            return DeletionSaga.events(of: started)
        case .existing(let existing):
            try endSessionsAndCodes(of: existing)
            return DeletionSaga.events(of: existing)
        case .notActive:
            return [invalid(id)]
        }
    }

    /// Revokes every refresh-token family of a begun deletion's account and forgets the codes mailed to its address (again
    /// on a redelivery: a crash may have come after the deletion's commit).
    private func endSessionsAndCodes(of deletion: DeletionRecord) throws {
        guard deletion.stage != .completed else { return }
        try tokens.revokeAll(uid: deletion.uid)
        for purpose in CodePurpose.allCases {
            try codes.update(email: deletion.email, purpose: purpose) { (record) throws(StoreError) in record = nil }
        }
    }

    /// Moves the deletion of a worker's reply. A reply for no deletion, or naming another uid or image id than the
    /// deletion's, changes nothing: it is thrown as an `UntrustedEvent` (dead-lettered).
    private func advance(on reply: Event) throws -> [Event] {
        try deletions.advance(reply.key, on: reply, missing: {
            UntrustedEvent.unknownSaga("\(reply.type) for request \(reply.key), which deletes no account")
        }, check: { deletion in
            if let mismatch = DeletionSaga.mismatch(of: reply, with: deletion) { throw UntrustedEvent.replyMismatch(mismatch) }
        }) { deletion, now in
            DeletionSaga.on(reply, deletion: deletion, at: now)
        }
    }

    /// Mails the account's address the notice of its deletion once the deletion is begun: run after the commit for every
    /// answer of the request while the deletion still knows the address (a notice sent again has the same Message-ID).
    public func notify(_ event: Event) throws {
        guard case .accountDeletionRequested(let request) = event, let deletion = try accounts.deletion(requestId: request.requestId),
              !deletion.email.isEmpty else { return }
        try mailer.send(try mail.message(Self.notice, values: [:], locale: request.locale, to: deletion.email, requestId: deletion.requestId,
                                         date: deletion.updatedAt))
    }

    private func invalid(_ requestId: String) -> Event {
        refused(requestId, Failure(.invalidCredentials, "The access token is missing, malformed, expired, signed out or not ours."))
    }

    private func refused(_ requestId: String, _ failure: Failure) -> Event {
        .accountChangeFailed(RequestRefusal(requestId: requestId, reason: failure.reason, message: failure.message))
    }
}
