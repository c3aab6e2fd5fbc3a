import Domain
import Foundation
import Accounts

/// The account worker's profile update step (`ProfileUpdateRequested`, `PATCH /me`), which drives the profile update saga
/// (``ProfileUpdateSaga``) through the one saga engine.
///
/// The request acts for the account of a Bearer access token that still counts (``SessionGate``), only ever on that
/// account and its complete profile (`profile_incomplete` otherwise: the login guard holds). Its fields are checked as a
/// registration's are (`name_empty`, `name_too_long`; the avatar by the image worker, with the image reason codes). One
/// update of an account's profile runs at a time (`profile_update_in_progress` for another meanwhile), so that the avatar an
/// update replaces is the one the profile names and no image is left behind. The update's request id is its own on
/// `account.requests` (``SagaClaims``).
public struct ProfileUpdateStep: EventHandler {
    public var gate: SessionGate
    public var accounts: any DeletionStore
    public var profiles: any ProfileStore
    public var seals: SealOpener
    public var rules: RegistrationRules
    public var clock: @Sendable () -> Date
    /// How long each update in flight has made no progress (the deadline sweep's measure).
    public var progress: ProgressWatch

    public init(gate: SessionGate, accounts: any DeletionStore, profiles: any ProfileStore, seals: SealOpener, rules: RegistrationRules = .init(),
                clock: @escaping @Sendable () -> Date = Date.init, progress: ProgressWatch = ProgressWatch()) {
        self.gate = gate
        self.accounts = accounts
        self.profiles = profiles
        self.seals = seals
        self.rules = rules
        self.clock = clock
        self.progress = progress
    }

    public static let routes = StepRoutes.profileUpdate

    public func handle(_ event: Event) throws -> [Event] {
        switch event {
        case .profileUpdateRequested(let request):
            return try begin(request)
        case .newAvatarWaiting(let heartbeat), .profileUpdateWaiting(let heartbeat):
            return try updates.heard(event.key, at: heartbeat.step, missing: { unknown(event) }, check: { try mismatch(event, $0) })
        case .newAvatarStored, .newAvatarRejected, .avatarDiscarded, .profileUpdateApplied, .profileUpdateRejected:
            return try updates.advance(event.key, on: event, missing: { unknown(event) }, check: { try mismatch(event, $0) }) { update, now in
                ProfileUpdateSaga.on(event, update: update, at: now, sealing: sealedProfile)
            }
        default:
            unrouted(event)
        }
    }

    /// Moves every update that has made no progress for `deadline`, as this process's monotonic clock measures it: one
    /// not yet switched is undone, one switched or being undone has its step sent again.
    public func expireUpdates(stalledFor deadline: Duration) throws -> [Event] {
        try updates.expire(stalledFor: deadline, ProfileUpdateSaga.expire)
    }

    /// The engine driving the saga over the account store, every move (its step sent again included) taking the
    /// account's next revision. Only this step moves an update, one event of its request at a time (one partition), so a
    /// save never finds the record moved by another writer.
    private var updates: SagaEngine<ProfileUpdateSaga> {
        let log = StoreSagaLog<ProfileUpdateRecord, Never>(
            record: { [accounts] key throws(StoreError) in try accounts.profileUpdate(requestId: key) },
            save: { [accounts] record, _, effects throws(StoreError) in try accounts.save(record, keeping: effects) },
            waiting: { [accounts] () throws(StoreError) in
                try accounts.profileUpdates(in: ProfileUpdateStage.waiting, updatedBefore: .distantFuture)
            },
            mark: { ($0.requestId, String($0.revision), $0.stage.rawValue) })
        return SagaEngine(log: log, clock: clock, progress: progress)
    }

    private func begin(_ request: ProfileUpdateRequested) throws -> [Event] {
        let id = request.requestId
        if let failure = RequestId.validate(id) { return [refused(id, failure)] }
        if let update = try accounts.profileUpdate(requestId: id) { return replay(update, request) }
        // An id another request holds (a deletion's, an email change's) is answered as that request.
        if let events = try SagaClaims(accounts: accounts).events(answering: AnswerKey(topic: Topic.accountRequests, id: id)) { return events }
        guard seals.vault.isPublicKey(request.replyKey) else { return [refused(id, RecentCaller.replyKeyInvalid)] }
        if request.name == nil && request.isMapLocationEnabled == nil && request.avatar == nil {
            return [refused(id, Failure(.profileUnchanged, "Give at least one of name, isMapLocationEnabled and avatar."))]
        }
        if let name = request.name, let failure = rules.validate(name: name) { return [refused(id, failure)] }
        let token: String
        switch try seals.open([(request.sealedAccessToken, .updateProfile)], in: SealContext(requestId: id, email: nil, replyKey: request.replyKey),
                              on: Topic.accountRequests) {
        case .opened(let secrets): token = secrets[0]
        case .unsealable:
            return [refused(id, Failure(.credentialUnsealable, "The token could not be unsealed; seal it with the account worker's public key."))]
        case .refused: return [refused(id, RecentCaller.invalidToken)]
        }
        let now = clock()
        guard let account = try gate.caller(of: token, at: now)?.account else { return [refused(id, RecentCaller.invalidToken)] }
        // Read after the account (its revision): a profile changed since is caught by `begin`, which then asks again.
        guard let previous = try profiles.profile(uid: account.uid), previous.isComplete else { return [refused(id, LoginGuard.refusal)] }
        let fields = ProfileFields(name: request.name.map(RegistrationRules.normalizedName), isMapLocationEnabled: request.isMapLocationEnabled)
        let record = ProfileUpdateRecord(requestId: id, uid: account.uid, fields: fields, previous: previous,
                                         newImageId: request.avatar.map { _ in UUID().uuidString.lowercased() }, oldImageId: try accounts.avatar(of: account),
                                         replyKey: request.replyKey, stage: request.avatar == nil ? .updatingProfile : .storingAvatar, updatedAt: now)
        switch try accounts.begin(record, atRevision: account.revision) {
        case .started(let started), .existing(let started): return replay(started, request)
        case .inFlight:
            return [refused(id, Failure(.profileUpdateInProgress, "Another update of this profile is in flight; retry once it is answered."))]
        case .notActive: return [refused(id, RecentCaller.invalidToken)]
        }
    }

    /// What an update asks for on its request: the new avatar from the request while it is being stored, else its stage's events.
    private func replay(_ update: ProfileUpdateRecord, _ request: ProfileUpdateRequested) -> [Event] {
        guard update.stage == .storingAvatar, let avatar = request.avatar else { return ProfileUpdateSaga.events(of: update) }
        return [ProfileUpdateSaga.storeNewAvatar(update, avatar: avatar)]
    }

    /// The completed update's profile, sealed to its requester's reply key (checked when it began).
    private func sealedProfile(of update: ProfileUpdateRecord) -> String {
        seals.vault.seal(ProfileView(requestId: update.requestId, uid: update.uid, profile: update.profile).sealedJSON, to: update.replyKey) ?? ""
    }

    private func unknown(_ reply: Event) -> any Error {
        UntrustedEvent.unknownSaga("\(reply.type) for request \(reply.key), which updates no profile")
    }

    private func mismatch(_ reply: Event, _ update: ProfileUpdateRecord) throws {
        if let mismatch = ProfileUpdateSaga.mismatch(of: reply, with: update) { throw UntrustedEvent.replyMismatch(mismatch) }
    }

    private func refused(_ requestId: String, _ failure: Failure) -> Event {
        .accountChangeFailed(RequestRefusal(requestId: requestId, reason: failure.reason, message: failure.message))
    }
}
