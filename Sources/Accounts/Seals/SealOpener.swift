import Domain
import Foundation

/// Opens the seals of one message: each must be a ``SealedSecret`` of its field's purpose, for the message's
/// request id, email, reply key and session id, sealed within ``maximumAge`` of now, and the message's request id must not
/// have used other seals on its topic before (``SealLedger``). Anything else is refused and changes nothing. A seal
/// refused for its time alone is reported to ``onSkew`` with the measured skew: a clock out of step (the sealer's or
/// the worker's) refuses every request, which must not look like users mistyping.
public struct SealOpener: Sendable {
    /// What opening a message's seals gave.
    public enum Outcome: Sendable, Equatable {
        /// The secrets, in the order of the seals.
        case opened([String])
        /// A seal does not open with the account worker's key, or is not a sealed secret.
        case unsealable
        /// A seal is for another purpose or message, too old, or its request id used other seals.
        case refused
    }

    public var vault: any PasswordVault
    public var ledger: any SealLedger
    /// Seconds a seal counts, either side of the worker's clock (clients' clocks drift).
    public var maximumAge: Double
    public var clock: @Sendable () -> Date
    /// Told the skew (this worker's time less the sealed time, in seconds) of each seal refused for its time alone.
    public var onSkew: @Sendable (_ seconds: Int) -> Void

    public init(vault: any PasswordVault, ledger: any SealLedger, maximumAge: Double = 300,
                clock: @escaping @Sendable () -> Date = Date.init, onSkew: @escaping @Sendable (_ seconds: Int) -> Void = { _ in }) {
        self.vault = vault
        self.ledger = ledger
        self.maximumAge = maximumAge
        self.clock = clock
        self.onSkew = onSkew
    }

    /// Opens `seals` (each sealed value with the purpose of the field it came in) of the message `context`, which
    /// arrived on `topic` (each request topic has its own request ids). `claiming` false checks the seals without
    /// claiming the request id (a request answered already, which no seal of it may do anything for but be recognised).
    public func open(_ seals: [(sealed: String, purpose: SealedSecret.Purpose)], in context: SealContext, on topic: String,
                     claiming: Bool = true) throws -> Outcome {
        var secrets: [SealedSecret] = []
        for seal in seals {
            guard let plaintext = vault.unseal(seal.sealed), let secret = SealedSecret.decode(plaintext) else { return .unsealable }
            guard secret.purpose == seal.purpose else { return .refused }
            secrets.append(secret)
        }
        let now = clock()
        let fingerprint = vault.digest(Array(context.replyKey.utf8))
        let email = context.email.map(RegistrationRules.normalizedEmail)
        for secret in secrets {
            guard secret.requestId == context.requestId, secret.email.map(RegistrationRules.normalizedEmail) == email,
                  secret.replyKeyFingerprint == fingerprint, secret.sessionId == context.sessionId else { return .refused }
            let skew = now.timeIntervalSince1970 - Double(secret.sealedAt)
            guard abs(skew) <= maximumAge else {
                onSkew(Int(skew.rounded()))
                return .refused
            }
        }
        let digest = vault.digest(Array(seals.map(\.sealed).joined(separator: "\n").utf8))
        if claiming, !(try ledger.claim(requestId: "\(topic)/\(context.requestId)", digest: digest, at: now)) { return .refused }
        return .opened(secrets.map(\.secret))
    }

    /// How long the ledger keeps a claim: a seal used at time t was sealed within ``maximumAge`` of t and counts
    /// until ``maximumAge`` after it was sealed, so 2 × ``maximumAge`` after t no seal used then opens again
    /// (each is refused as too old); one more minute covers clocks that drift between replicas.
    public var claimRetention: Double { 2 * maximumAge + 60 }

    /// Forgets the ledger's claims older than ``claimRetention`` (the account worker's periodic sweep); returns how many.
    @discardableResult
    public func forgetExpiredClaims() throws(StoreError) -> Int {
        try ledger.forget(claimedBefore: clock().addingTimeInterval(-claimRetention))
    }
}

extension SealOpener {
    /// The refusal of a request whose reply key is not one the vault can seal to.
    public static let replyKeyInvalid = Failure(.replyKeyInvalid, "The reply key is not an X25519 public key in base64.")

    /// The token a request carries sealed for `purpose` (alone, no email in its seal context), answered to `replyKey`
    /// on `topic`; or the request's refusal: an invalid request id or reply key, a seal that does not open, or `refusal`
    /// for a seal refused (another purpose or request, too old, used before).
    public func openToken(_ sealed: String, for purpose: SealedSecret.Purpose, requestId: String, replyKey: String,
                          sessionId: String? = nil, on topic: String, refusal: Failure) throws -> Result<String, Failure> {
        if let failure = RequestId.validate(requestId) { return .failure(failure) }
        guard vault.isPublicKey(replyKey) else { return .failure(Self.replyKeyInvalid) }
        let context = SealContext(requestId: requestId, email: nil, replyKey: replyKey, sessionId: sessionId)
        switch try open([(sealed, purpose)], in: context, on: topic) {
        case .opened(let secrets): return .success(secrets[0])
        case .unsealable:
            return .failure(Failure(.credentialUnsealable, "The token could not be unsealed; seal it with the account worker's public key."))
        case .refused: return .failure(refusal)
        }
    }
}
