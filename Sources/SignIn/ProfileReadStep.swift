import Domain
import Foundation
import Accounts

/// The account worker's answer to `GET /me`: the profile of the uid an access token names, sealed to the
/// requester's reply key. The uid is only ever the `sub` of a token that verifies (signature by a published
/// key, issuer, audience, expiry) and still counts (``SessionGate``: not issued before the account's sessions were
/// ended, its session not signed out), never a field of the request; a token that does not, for whatever reason, gives
/// one `invalid_credentials` answer.
public struct ProfileReadStep: EventHandler {
    public var seals: SealOpener
    public var gate: SessionGate
    public var loginGuard: LoginGuard
    public var clock: @Sendable () -> Date

    public init(seals: SealOpener, gate: SessionGate, loginGuard: LoginGuard,
                clock: @escaping @Sendable () -> Date = Date.init) {
        self.seals = seals
        self.gate = gate
        self.loginGuard = loginGuard
        self.clock = clock
    }

    public static let routes = StepRoutes.profileRead

    public func handle(_ event: Event) throws -> [Event] {
        guard case .profileRequested(let request) = event else { unrouted(event) }
        return [try answer(request)]
    }

    private func answer(_ request: BearerRequest) throws -> Event {
        let token: String
        switch try seals.openToken(request.sealedAccessToken, for: .accessToken, requestId: request.requestId, replyKey: request.replyKey,
                                   on: Topic.authRequests, refusal: Self.invalidToken) {
        case .success(let opened): token = opened
        case .failure(let refusal): return refused(request.requestId, refusal)
        }
        guard let uid = try gate.caller(of: token, at: clock())?.account.uid else { return refused(request.requestId, Self.invalidToken) }
        guard let (account, profile) = try loginGuard.admitted(uid: uid) else { return refused(request.requestId, LoginGuard.refusal) }
        let view = ProfileView(requestId: request.requestId, uid: account.uid, profile: profile).sealedJSON
        guard let sealed = seals.vault.seal(view, to: request.replyKey) else { return refused(request.requestId, SealOpener.replyKeyInvalid) }
        return .profileAnswered(ProfileAnswered(requestId: request.requestId, sealedProfile: sealed))
    }

    private static let invalidToken = Failure(.invalidCredentials, "The access token is missing, malformed, expired, signed out or not ours.")

    private func refused(_ requestId: String, _ failure: Failure) -> Event {
        .tokenRefused(RequestRefusal(requestId: requestId, reason: failure.reason, message: failure.message))
    }
}
