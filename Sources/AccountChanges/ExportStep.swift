import Domain
import Foundation
import Accounts

/// The account worker's export step (`ExportRequested`, GDPR Art. 15 and 20): everything Registrar stores about the
/// account of a Bearer access token that still counts (``SessionGate``) — its fields but no password hash, its profile
/// and avatar URL, its live sessions, and the history of its requests (its registration, every account change and profile
/// update) —
/// sealed to the requester. The token's session must have signed in within ``reauthenticationWindow``: an export is
/// given only to someone who proved a credential just now, not to whoever holds an older session's token
/// (`reauthentication_required`; the app signs in again, by password or emailed code, and asks with the new token).
public struct ExportStep: EventHandler {
    public var gate: SessionGate
    public var accounts: any ProfileUpdateStore
    public var profiles: any ProfileStore
    public var seals: SealOpener
    /// Seconds after its sign-in that a session may export.
    public var reauthenticationWindow: Double
    public var clock: @Sendable () -> Date

    /// The default window: five minutes.
    public static let defaultReauthenticationWindow: Double = 300

    public init(gate: SessionGate, accounts: any ProfileUpdateStore, profiles: any ProfileStore, seals: SealOpener,
                reauthenticationWindow: Double = defaultReauthenticationWindow, clock: @escaping @Sendable () -> Date = Date.init) {
        self.gate = gate
        self.accounts = accounts
        self.profiles = profiles
        self.seals = seals
        self.reauthenticationWindow = reauthenticationWindow
        self.clock = clock
    }

    public static let routes = StepRoutes.export

    public func handle(_ event: Event) throws -> [Event] {
        guard case .exportRequested(let request) = event else { unrouted(event) }
        return [try export(request)]
    }

    private func export(_ request: BearerRequest) throws -> Event {
        let id = request.requestId
        if let failure = RequestId.validate(id) { return refused(id, failure) }
        let now = clock()
        let caller: SessionGate.Caller
        switch try RecentCaller(gate: gate, seals: seals, window: reauthenticationWindow)
            .caller(of: [(request.sealedAccessToken, .export)], requestId: id, replyKey: request.replyKey, on: Topic.authRequests,
                    action: "export", at: now) {
        case .caller(let found, _): caller = found
        case .refused(let failure): return refused(id, failure)
        }
        let tokens = gate.tokens
        let account = caller.account
        let registration = try accounts.saga(account.registrationId).map {
            ExportedRequest(type: "registration", at: $0.updatedAt, outcome: $0.stage.rawValue)
        }
        let changes = try accounts.changes(uid: account.uid).map {
            ExportedRequest(type: $0.kind.rawValue, at: $0.updatedAt, outcome: $0.stage.rawValue)
        } + accounts.profileUpdates(uid: account.uid).map {
            ExportedRequest(type: "update_profile", at: $0.updatedAt, outcome: $0.stage.rawValue)
        }
        let sessions = try tokens.liveFamilies(uid: account.uid, at: now).map {
            SessionView(id: $0.id, createdAt: $0.createdAt, lastUsedAt: $0.lastUsedAt, clientId: $0.clientId, current: $0.id == caller.session)
        }
        let export = AccountExport(
            requestId: id, exportedAt: now,
            account: ExportedAccount(uid: account.uid, email: account.email, status: account.status.rawValue, createdAt: account.createdAt,
                                     hasPassword: !account.passwordHash.isEmpty),
            profile: try profiles.profile(uid: account.uid), sessions: sessions,
            history: (registration.map { [$0] } ?? []) + changes.sorted { $0.at < $1.at })
        guard let sealed = seals.vault.seal(export.sealedJSON, to: request.replyKey) else { return refused(id, RecentCaller.replyKeyInvalid) }
        return .exportAnswered(ExportAnswered(requestId: id, sealedExport: sealed))
    }

    private func refused(_ requestId: String, _ failure: Failure) -> Event {
        .tokenRefused(RequestRefusal(requestId: requestId, reason: failure.reason, message: failure.message))
    }
}
