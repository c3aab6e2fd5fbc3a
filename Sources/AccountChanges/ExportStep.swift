import Domain
import Foundation
import Registration
import SignIn

/// The account worker's export step (`ExportRequested`, GDPR Art. 15 and 20): everything Registrar stores about the
/// account of a Bearer access token that still counts (``SessionGate``) — its fields but no password hash, its profile
/// and avatar URL, its live sessions, and the history of its requests (its registration and every account change) —
/// sealed to the requester. The token's session must have signed in within ``reauthenticationWindow``: an export is
/// given only to someone who proved a credential just now, not to whoever holds an older session's token
/// (`reauthentication_required`; the app signs in again, by password or emailed code, and asks with the new token).
public struct ExportStep: EventHandler {
    public var gate: SessionGate
    public var accounts: any AccountChangeStore
    public var profiles: any ProfileStore
    public var seals: SealOpener
    /// Seconds after its sign-in that a session may export.
    public var reauthenticationWindow: Double
    public var clock: @Sendable () -> Date

    /// The default window: five minutes.
    public static let defaultReauthenticationWindow: Double = 300

    public init(gate: SessionGate, accounts: any AccountChangeStore, profiles: any ProfileStore, seals: SealOpener,
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

    private func export(_ request: ExportRequested) throws -> Event {
        let id = request.requestId
        if let failure = RequestId.validate(id) { return refused(id, failure) }
        guard seals.vault.isPublicKey(request.replyKey) else { return refused(id, Self.replyKeyInvalid) }
        let token: String
        switch try seals.open([(request.sealedAccessToken, .export)], in: SealContext(requestId: id, email: nil, replyKey: request.replyKey),
                              on: Topic.authRequests) {
        case .opened(let secrets): token = secrets[0]
        case .unsealable:
            return refused(id, Failure(.credentialUnsealable, "The token could not be unsealed; seal it with the account worker's public key."))
        case .refused: return refused(id, Self.invalidToken)
        }
        let now = clock()
        guard let caller = try gate.caller(of: token, at: now) else { return refused(id, Self.invalidToken) }
        let tokens = gate.tokens
        guard try gate.signedInRecently(caller, within: reauthenticationWindow, at: now) else {
            return refused(id, Failure(.reauthenticationRequired, "Sign in again (password or emailed code) and export with the new access token "
                                                                      + "within \(Int(reauthenticationWindow)) s."))
        }
        let account = caller.account
        let registration = try accounts.saga(account.registrationId).map {
            ExportedRequest(type: "registration", at: $0.updatedAt, outcome: $0.stage.rawValue)
        }
        let changes = try accounts.changes(uid: account.uid).map {
            ExportedRequest(type: $0.kind.rawValue, at: $0.updatedAt, outcome: $0.stage.rawValue)
        }
        let sessions = try tokens.liveFamilies(uid: account.uid, at: now).map {
            SessionView(id: $0.id, createdAt: $0.createdAt, lastUsedAt: $0.lastUsedAt, clientId: $0.clientId, current: $0.id == caller.session)
        }
        let export = AccountExport(
            requestId: id, exportedAt: now,
            account: ExportedAccount(uid: account.uid, email: account.email, status: account.status.rawValue, createdAt: account.createdAt,
                                     hasPassword: !account.passwordHash.isEmpty),
            profile: try profiles.profile(uid: account.uid), sessions: sessions, history: (registration.map { [$0] } ?? []) + changes)
        guard let sealed = seals.vault.seal(export.sealedJSON, to: request.replyKey) else { return refused(id, Self.replyKeyInvalid) }
        return .exportAnswered(ExportAnswered(requestId: id, sealedExport: sealed))
    }

    private static let invalidToken = Failure(.invalidCredentials, "The access token is missing, malformed, expired, signed out or not ours.")
    private static let replyKeyInvalid = Failure(.replyKeyInvalid, "The reply key is not an X25519 public key in base64.")

    private func refused(_ requestId: String, _ failure: Failure) -> Event {
        .tokenRefused(RequestRefusal(requestId: requestId, reason: failure.reason, message: failure.message))
    }
}
