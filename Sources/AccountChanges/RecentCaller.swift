import Domain
import Foundation
import Accounts

/// The caller of a request that carries its Bearer access token sealed (an export, a deletion), re-authenticated: the
/// reply key is an X25519 public key, every seal opens for this request, the token still counts (``SessionGate``) for an
/// active account, and its session signed in within `window` seconds.
struct RecentCaller {
    var gate: SessionGate
    var seals: SealOpener
    /// Seconds after its sign-in that a session counts as re-authenticated.
    var window: Double

    enum Outcome {
        /// The caller, and the secrets of the seals after the token's, in order.
        case caller(SessionGate.Caller, secrets: [String])
        case refused(Failure)
    }

    /// The caller of the access token sealed first in `sealed`, beside the request's other seals. `action` names what
    /// the request does ("export", "delete"), for the refusal of an older session.
    func caller(of sealed: [(sealed: String, purpose: SealedSecret.Purpose)], requestId: String, replyKey: String, on topic: String,
                action: String, at now: Date) throws -> Outcome {
        guard seals.vault.isPublicKey(replyKey) else { return .refused(Self.replyKeyInvalid) }
        let secrets: [String]
        switch try seals.open(sealed, in: SealContext(requestId: requestId, email: nil, replyKey: replyKey), on: topic) {
        case .opened(let opened): secrets = opened
        case .unsealable:
            return .refused(Failure(.credentialUnsealable, "A secret could not be unsealed; seal it with the account worker's public key."))
        case .refused: return .refused(Self.invalidToken)
        }
        guard let caller = try gate.caller(of: secrets[0], at: now) else { return .refused(Self.invalidToken) }
        guard try gate.signedInRecently(caller, within: window, at: now) else {
            return .refused(Failure(.reauthenticationRequired, "Sign in again (password or emailed code) and \(action) with the new access "
                                                               + "token within \(Int(window)) s."))
        }
        return .caller(caller, secrets: Array(secrets.dropFirst()))
    }

    static let invalidToken = Failure(.invalidCredentials, "The access token is missing, malformed, expired, signed out or not ours.")
    static let replyKeyInvalid = Failure(.replyKeyInvalid, "The reply key is not an X25519 public key in base64.")
}
