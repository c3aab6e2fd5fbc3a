import Courier
import Domain
import Foundation
import Accounts

/// The account worker's account deletion step (`AccountDeletionRequested`, `DELETE /me`; App Store Review Guideline
/// 5.1.1(v), GDPR Art. 17), which drives the deletion saga (``DeletionSaga``) through the one saga engine.
///
/// The request acts for the account of a Bearer access token that still counts (``SessionGate``) and whose session signed
/// in within ``reauthenticationWindow`` (`reauthentication_required` otherwise), only ever on that account, and proves its
/// owner is there now with one credential sealed for the request: the account's password (counted against its lockout
/// like a sign-in) or a `delete_account` code mailed to its address (`invalid_credentials` when wrong, `reauthentication_required`
/// when neither or both are given). It begins the deletion in one transaction — the record, the account marked `deleting`,
/// its sessions' cut-off — then revokes every refresh-token family, forgets the codes mailed to its address and asks the
/// image worker to erase the avatar; the profile worker's erasure follows, then the account and every row naming it go,
/// its refresh tokens are forgotten, and `AccountDeleted` answers the request. The owner's address is mailed a notice once the deletion is begun
/// (``notify(_:undeliverable:)``), and is free to register again once it completed.
///
/// The deletion's request id is its own on `account.requests` (``SagaClaims``): another request under it is answered as
/// the deletion, and a deletion under the id of another request is answered as that one, so each has one outcome.
public struct DeletionStep: EventHandler {
    public var gate: SessionGate
    public var accounts: any DeletionStore
    public var passwords: PasswordCheck
    public var codes: CodeVerifier
    public var seals: SealOpener
    public var mailer: any Mailer
    public var mail: MailSettings
    /// Seconds after its sign-in that a session may delete its account.
    public var reauthenticationWindow: Double
    public var clock: @Sendable () -> Date
    /// How long each deletion in flight has made no progress (the sweep's measure).
    public var progress: ProgressWatch

    public init(gate: SessionGate, accounts: any DeletionStore, passwords: PasswordCheck, codes: CodeVerifier, seals: SealOpener,
                mailer: any Mailer, mail: MailSettings = .init(), reauthenticationWindow: Double = ExportStep.defaultReauthenticationWindow,
                clock: @escaping @Sendable () -> Date = Date.init, progress: ProgressWatch = ProgressWatch()) {
        self.progress = progress
        self.gate = gate
        self.accounts = accounts
        self.passwords = passwords
        self.codes = codes
        self.seals = seals
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

    /// The request ids the account's sagas hold (``AnswerOnce/claimed``).
    public var claims: SagaClaims { SagaClaims(accounts: accounts) }

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

    /// Moves every deletion that has waited for a step for `deadline` without progress, as this process's monotonic
    /// clock measures it, on, by sending its step again.
    public func resumeDeletions(stalledFor deadline: Duration) throws -> [Event] {
        try deletions.expire(stalledFor: deadline, DeletionSaga.expire)
    }

    /// The engine driving the saga over the account store: a record and what its stage does to the account commit
    /// together, every move (its step sent again included) taking the account's next revision. Only this step moves a
    /// deletion, one event of its request at a time (one partition), so a save never finds the record moved by another
    /// writer. Once a deletion completed (again on a redelivery), the account's refresh tokens are forgotten.
    private var deletions: SagaEngine<DeletionSaga> {
        let log = StoreSagaLog<DeletionRecord, Never>(
            record: { [accounts] key throws(StoreError) in try accounts.deletion(requestId: key) },
            save: { [accounts] record, _, effects throws(StoreError) in try accounts.save(record, keeping: effects) },
            waiting: { [accounts] () throws(StoreError) in try accounts.deletions(in: DeletionStage.waiting, updatedBefore: .distantFuture) },
            mark: { ($0.requestId, String($0.revision), $0.stage.rawValue) })
        return SagaEngine(log: log, clock: clock, progress: progress, afterCommit: [{ [tokens] deletion, _ in
            if deletion.stage == .completed { try tokens.forget(uid: deletion.uid) }
        }])
    }

    private func begin(_ request: AccountDeletionRequested) throws -> [Event] {
        let id = request.requestId
        if let failure = RequestId.validate(id) { return [refused(id, failure)] }
        if let problem = request.locale.flatMap(MailLocale.problem(in:)) { return [refused(id, Failure(.localeInvalid, problem))] }
        if let deletion = try accounts.deletion(requestId: id) {
            try endSessionsAndCodes(of: deletion)
            return DeletionSaga.events(of: deletion)
        }
        // An id another request holds (an email change's) is answered as that request.
        if let events = try claims.events(answering: AnswerKey(topic: Topic.accountRequests, id: id)) { return events }
        let proof: (sealed: String, purpose: SealedSecret.Purpose)
        switch (request.sealedPassword, request.sealedCode) {
        case (let password?, nil): proof = (password, .reauthentication)
        case (nil, let code?): proof = (code, .code)
        default:
            return [refused(id, Failure(.reauthenticationRequired, "Prove it is you with one credential: the account's password (sealedPassword) "
                                                                  + "or a delete_account code mailed to its address (sealedCode)."))]
        }
        let now = clock()
        let caller: SessionGate.Caller
        let secret: String
        switch try RecentCaller(gate: gate, seals: seals, window: reauthenticationWindow)
            .caller(of: [(request.sealedAccessToken, .deleteAccount), proof], requestId: id, replyKey: request.replyKey,
                    on: Topic.accountRequests, action: "delete", at: now) {
        case .caller(let found, let secrets): (caller, secret) = (found, secrets[0])
        case .refused(let failure): return [refused(id, failure)]
        }
        guard try proves(caller.account, secret, by: proof.purpose, requestId: id, at: now) else {
            return [refused(id, Failure(.invalidCredentials, "The password or delete_account code is not valid."))]
        }
        switch try begin(deleting: caller.account, requestId: id, at: now) {
        case .success(let events): return events
        case .failure(let failure): return [refused(id, failure)]
        }
    }

    /// Begins the deletion of `account` under `requestId`, its owner's re-authentication done (or an operator's order):
    /// the saga's first events, or why it cannot begin — the account is no longer active or disabled
    /// (`invalid_credentials`), or an update of its profile or an email change is in flight. An operator's order is announced
    /// by `event`, committed with the deletion's beginning.
    public func begin(deleting account: Account, requestId id: String, at now: Date,
                      announcing event: AccountEvent? = nil) throws -> Result<[Event], Failure> {
        let imageId = try accounts.avatar(of: account)
        let record = DeletionRecord(requestId: id, uid: account.uid, email: account.email, imageId: imageId,
                                    stage: DeletionSaga.firstStage(imageId: imageId), updatedAt: now)
        switch try accounts.begin(record, endingSessionsAt: account.sessionCutoff(changedAt: now), announcing: event) {
        case .started(let started):
            try endSessionsAndCodes(of: started)
            return .success(DeletionSaga.events(of: started))
        case .existing(let existing):
            try endSessionsAndCodes(of: existing)
            return .success(DeletionSaga.events(of: existing))
        case .notActive:
            return .failure(RecentCaller.invalidToken)
        case .profileUpdateInFlight:
            return .failure(Failure(.profileUpdateInProgress, "An update of the profile or its email is in flight; delete once it is answered."))
        }
    }

    /// Revokes every refresh-token family of a begun deletion's account and forgets the codes mailed to its address and the
    /// pending sign-ins naming it (again on a redelivery: a crash may have come after the deletion's commit).
    private func endSessionsAndCodes(of deletion: DeletionRecord) throws {
        guard deletion.stage != .completed else { return }
        try tokens.revokeAll(uid: deletion.uid)
        try tokens.forgetPending(email: deletion.email)
        for purpose in CodePurpose.allCases {
            try codes.codes.update(email: deletion.email, purpose: purpose) { (record) throws(StoreError) in record = nil }
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
    /// A notice the mail server refuses for good (a leaver's closed mailbox: 550) is given to `undeliverable` and never
    /// fails the deletion, which goes on regardless; a transient failure is thrown (the worker retries the request).
    public func notify(_ event: Event, undeliverable: (StoreError) -> Void = { _ in }) throws {
        guard case .accountDeletionRequested(let request) = event else { return }
        try notify(deletion: request.requestId, locale: request.locale, undeliverable: undeliverable)
    }

    /// Mails the notice of the deletion `requestId` begun, in `locale`, as ``notify(_:undeliverable:)`` does.
    public func notify(deletion requestId: String, locale: String?, undeliverable: (StoreError) -> Void = { _ in }) throws {
        guard let deletion = try accounts.deletion(requestId: requestId), !deletion.email.isEmpty else { return }
        do {
            try mailer.send(try mail.message(Self.notice, values: [:], locale: locale, to: deletion.email,
                                             requestId: deletion.requestId, date: deletion.updatedAt))
        } catch where error.kind == .permanent {
            undeliverable(error)
        }
    }

    /// Whether `secret` is `account`'s password (counted like a sign-in's) or a `delete_account` code mailed to its address.
    private func proves(_ account: Account, _ secret: String, by purpose: SealedSecret.Purpose, requestId: String, at now: Date) throws -> Bool {
        guard purpose == .code else { return try passwords.authenticate(email: account.email, password: secret, at: now).account?.uid == account.uid }
        return try passwords.verify(code: secret, with: codes, for: account, email: account.email, purposes: [.deleteAccount],
                                    requestId: requestId, at: now) == nil
    }

    private func refused(_ requestId: String, _ failure: Failure) -> Event {
        .accountChangeFailed(RequestRefusal(requestId: requestId, reason: failure.reason, message: failure.message))
    }
}
