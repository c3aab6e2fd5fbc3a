import Accounts
import Domain
import Foundation

/// The account worker's step, which also drives the registration saga: it validates a request and
/// its `register` code (the proof that the registrant reads the mailbox), creates the pending account, asks
/// for the avatar and the profile, activates the account on success, and walks the steps back on failure.
public struct RegistrationCoordinator: EventHandler {
    public var accounts: any AccountStore
    public var vault: any PasswordVault
    public var seals: SealOpener
    public var mailbox: any MailboxProof
    public var rules: RegistrationRules
    public var clock: @Sendable () -> Date
    /// How long each saga in flight has made no progress (the deadline sweep's measure).
    public var progress: ProgressWatch
    /// Side effects of the saga's moves (a welcome mail once it completes), kept with each move: `SagaEngine.Effect`.
    public var effects: [SagaEngine<SagaTransition>.Effect]

    public init(accounts: any AccountStore, vault: any PasswordVault, seals: SealOpener, mailbox: any MailboxProof,
                rules: RegistrationRules = .init(), clock: @escaping @Sendable () -> Date = Date.init,
                progress: ProgressWatch = ProgressWatch(), effects: [SagaEngine<SagaTransition>.Effect] = []) {
        self.accounts = accounts
        self.progress = progress
        self.vault = vault
        self.seals = seals
        self.mailbox = mailbox
        self.rules = rules
        self.clock = clock
        self.effects = effects
    }

    /// The engine driving the saga over the account store: a record, its account change and its side effects commit
    /// together, guarded by the record's version.
    private var sagas: SagaEngine<SagaTransition> {
        let log = StoreSagaLog<SagaRecord, AccountChange>(
            record: { [accounts] key throws(StoreError) in try accounts.saga(key) },
            save: { [accounts] record, change, effects throws(StoreError) in
                try accounts.save(record, applying: change, keeping: effects) ? record : nil
            },
            waiting: { [accounts] () throws(StoreError) in try accounts.sagas(in: SagaStage.waiting, updatedBefore: .distantFuture) },
            mark: { ($0.registrationId, String($0.version), $0.stage.rawValue) })
        return SagaEngine(log: log, clock: clock, progress: progress, effects: effects)
    }

    public static let routes = StepRoutes.registration

    public func handle(_ event: Event) throws -> [Event] {
        switch event {
        case .registrationRequested(let request):
            return try start(request)
        case .avatarStored, .avatarRejected, .avatarDeleted, .profileWritten, .profileRejected, .profileDeleted:
            return try advance(on: event)
        case .avatarWaiting:
            return try heard(event, waitingAt: .awaitingAvatar)
        case .profileWaiting:
            return try heard(event, waitingAt: .awaitingProfile)
        default:
            unrouted(event)
        }
    }

    /// A dead-lettered registration request: a saga that exists answers as it stands (its outcome, or
    /// what its stage asks for: it goes on to its own outcome, or the deadline sweep undoes it); else
    /// the failure is recorded as a failed saga that created nothing, so that a replay of the request within the answers'
    /// retention is answered with the same failure and starts no registration (an invalid id is not kept).
    public func answer(deadLettered failure: Event) throws -> [Event] {
        guard case .registrationFailed(let failed) = failure, RegistrationRequest.validateId(failed.registrationId) == nil else {
            return [failure]
        }
        if let saga = try accounts.saga(failed.registrationId) { return SagaTransition.events(of: saga) }
        return try recordRefusal(failed.registrationId, Failure(failed.reason, failed.message))
    }

    /// Fails every saga in flight that has made no progress (no step's reply, no heartbeat of a worker waiting at its
    /// step) for `deadline`, as this process's monotonic clock measures it, undoing what it created — after asking once
    /// more for a profile (`SagaTransition.retry`), whose command a broker may have lost.
    public func expireSagas(stalledFor deadline: Duration) throws -> [Event] {
        try sagas.expire(stalledFor: deadline, retrying: SagaTransition.retry, SagaTransition.expire)
    }

    private func start(_ request: RegistrationRequested) throws -> [Event] {
        let id = request.registrationId, email = RegistrationRules.normalizedEmail(request.email)
        if let saga = try accounts.saga(id) { return replay(saga, request) }
        // What the message's bytes alone refuse is refused unrecorded (a redelivery is refused alike); once the seals open,
        // where the clock and the code's state decide, a refusal is recorded (`recordRefusal`).
        if let failure = RegistrationRequest.validateId(id) { return refused(id, failure) }
        if let failure = rules.validate(name: request.name) ?? rules.validate(email: email) { return refused(id, failure) }
        guard vault.isPublicKey(request.replyKey) else {
            return refused(id, Failure(.replyKeyInvalid, "The reply key is not an X25519 public key in base64."))
        }
        guard let sealedCode = request.sealedCode else {
            return refused(id, Failure(.codeRequired, "A registration needs the register code mailed to the address: request one "
                                                   + "(purpose register), then seal it in sealedCode."))
        }
        let context = SealContext(requestId: id, email: request.email, replyKey: request.replyKey)
        let (password, code): (String, String)
        // Not claimed in the seal ledger: a registration is once-only by its id already (a saga that exists is replayed,
        // an answered id answered again), its seals open only in its own context, and its code is used once, by this
        // id and reply key. A claim would refuse the same request published again with fresh seals (a restarted
        // gateway's retry) after a first delivery that claimed its seals and died before creating anything.
        switch try seals.open([(request.sealedPassword, .registrationPassword), (sealedCode, .code)], in: context, on: Topic.registrationRequests,
                              claiming: false) {
        case .opened(let secrets): (password, code) = (secrets[0], secrets[1])
        case .unsealable:
            return refused(id, Failure(.passwordUnsealable,
                                       "The password or code could not be unsealed; seal them with the account worker's public key."))
        case .refused:
            return try recordRefusal(id, Failure(.invalidCredentials, "The sealed password or code is not for this registration, or too old."))
        }
        if let failure = rules.validate(password: password, email: email) { return try recordRefusal(id, failure) }
        // The mailbox is proven before anything is created (and before a hash's work is spent on the request).
        let now = clock()
        guard try mailbox.accepts(registerCode: code, email: email, requestId: id, replyKey: request.replyKey, at: now) else {
            return try recordRefusal(id, Failure(.invalidCredentials,
                                                 "The register code is wrong, expired or used: request a new one for this address."))
        }
        return try begin(request, email: email, passwordHash: try vault.hash(password), provenAt: now)
    }

    /// Starts the registration of an account without a password, for a sign-in by email code of a new
    /// email (valid and normalised) answered to `replyKey`: the name is the email's local part, the avatar
    /// the default image. Idempotent by `registrationId` like any registration.
    public func startWithoutPassword(registrationId: String, email: String, replyKey: String) throws -> [Event] {
        let localPart = RegistrationRules.normalizedName(String(email.prefix { $0 != "@" }))
        let request = RegistrationRequested(registrationId: registrationId, email: email,
                                            name: String(localPart.prefix(rules.maximumNameLength)),
                                            sealedPassword: "", sealedCode: nil, replyKey: replyKey, avatar: nil, isMapLocationEnabled: false)
        if let saga = try accounts.saga(registrationId) { return replay(saga, request) }
        // An empty hash matches no password; the sign-in's code proved the mailbox.
        return try begin(request, email: email, passwordHash: "", provenAt: clock())
    }

    /// Creates the pending account, its mailbox proven at `provenAt`, and the saga, and asks for the avatar.
    private func begin(_ request: RegistrationRequested, email: String, passwordHash: String, provenAt: Date) throws -> [Event] {
        let now = clock()
        let saga = SagaRecord(
            registrationId: request.registrationId, uid: UUID().uuidString.lowercased(), email: email,
            name: RegistrationRules.normalizedName(request.name), isMapLocationEnabled: request.isMapLocationEnabled,
            imageId: UUID().uuidString.lowercased(), replyKey: request.replyKey, stage: .awaitingAvatar, startedAt: now, updatedAt: now)
        let account = Account(uid: saga.uid, email: email, passwordHash: passwordHash, status: .pending,
                              registrationId: request.registrationId, createdAt: now, verifiedAt: provenAt)
        switch try accounts.start(saga, account: account) {
        case .started:
            return [SagaTransition.storeAvatar(saga, avatar: request.avatar)]
        case .existing(let existing):
            return replay(existing, request)
        case .emailTaken:
            // The email kept: a sign-in by code checks that the registration it started was of its address.
            return try recordRefusal(request.registrationId, Failure(.emailTaken, "This email address is already in use."), email: email)
        }
    }

    /// A request for a saga that exists: publish again what its stage asked for.
    private func replay(_ saga: SagaRecord, _ request: RegistrationRequested) -> [Event] {
        guard saga.stage == .awaitingAvatar else { return SagaTransition.events(of: saga) }
        return [SagaTransition.storeAvatar(saga, avatar: request.avatar)]
    }

    /// A worker's heartbeat at `stage`: it is alive and retrying a failing store, holding the saga it names and those
    /// queued behind it, so every saga at that stage has made progress. It publishes and saves nothing; one naming a
    /// saga never started or other ids than the saga's is refused like any reply.
    private func heard(_ heartbeat: Event, waitingAt stage: SagaStage) throws -> [Event] {
        try sagas.heard(heartbeat.registrationId, at: stage.rawValue, missing: { unknownSaga(heartbeat) }, check: { try mismatch(heartbeat, $0) })
    }

    /// Moves the reply's saga. A reply for no saga, or naming another uid or image id than the saga's
    /// record, changes and deletes nothing: it is thrown as an `UntrustedEvent` (dead-lettered).
    private func advance(on reply: Event) throws -> [Event] {
        try sagas.advance(reply.registrationId, on: reply, missing: { unknownSaga(reply) }, check: { try mismatch(reply, $0) }) { saga, now in
            SagaTransition.on(reply, saga: saga, at: now, sealing: sealedResult)
        }
    }

    private func unknownSaga(_ reply: Event) -> any Error {
        UntrustedEvent.unknownSaga("\(reply.type) for registration \(reply.registrationId), which was never started")
    }

    private func mismatch(_ reply: Event, _ saga: SagaRecord) throws {
        if let mismatch = SagaTransition.mismatch(of: reply, with: saga) { throw UntrustedEvent.replyMismatch(mismatch) }
    }

    /// The completed saga's result sealed to its requester's reply key (checked when the saga started).
    private func sealedResult(of saga: SagaRecord) -> String {
        vault.seal(saga.result.sealedJSON, to: saga.replyKey) ?? ""
    }

    /// Refuses registration `registrationId` without recording it.
    private func refused(_ registrationId: String, _ failure: Failure) -> [Event] {
        [.registrationFailed(RegistrationFailed(registrationId: registrationId, reason: failure.reason, message: failure.message))]
    }

    /// Refuses registration `registrationId` for good: the refusal is recorded as a failed saga that created nothing (no
    /// uid; of `email` when given), so that the request redelivered or published again within the answers' retention is
    /// answered with this refusal, however the clock, the seal window or its code have moved meanwhile (one outcome per
    /// request); a saga recorded meanwhile answers instead. The sweep forgets it after the retention (`forgetRefusals`).
    private func recordRefusal(_ registrationId: String, _ failure: Failure, email: String = "") throws -> [Event] {
        let now = clock()
        let saga = SagaRecord(registrationId: registrationId, uid: "", email: email, name: "", isMapLocationEnabled: false,
                              imageId: "", stage: .failed, failure: failure, startedAt: now, updatedAt: now)
        return SagaTransition.events(of: try accounts.recordFailed(saga))
    }
}

/// Sign-in opens an account by a `register` code through this saga.
extension RegistrationCoordinator: AccountOpening {
    public func outcome(of saga: SagaRecord) -> Event? { SagaTransition.outcome(of: saga) }
}
