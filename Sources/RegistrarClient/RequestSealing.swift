import Crypto
import Domain

/// Builds Registrar's requests as a client publishes them — each secret sealed to the account worker's public key for
/// its field and request, with the request's own reply key, derived from `replySecret`, which the outcome's details
/// are sealed to — and opens those details. `RegistrarClient` builds its requests so; `RequestSealer` does without a
/// broker (requests published by other means, the Kafka-free test tier).
public protocol RequestSealing: Sendable {
    /// The account worker's public key, which secrets are sealed to.
    var publicKey: SealingPublicKey { get }
    /// What each request's reply key pair is derived from: outcomes seal their details to the pair of their request.
    var replySecret: ReplySecret { get }
}

extension RequestSealing {
    /// The reply key (base64) request `requestId` carries.
    public func replyKey(for requestId: String) -> String { replySecret.replyKey(for: requestId) }

    /// `secret` sealed to the account worker's public key for `purpose` in request `requestId` of `email`
    /// (with the request's reply key), base64, as requests carry it.
    public func seal(_ secret: String, for purpose: SealedSecret.Purpose, requestId: String, email: String?) -> String {
        publicKey.sealedBase64(secret, for: purpose, in: SealContext(requestId: requestId, email: email, replyKey: replyKey(for: requestId)))
    }
}

/// Requests sealed for the account worker whose public key is `publicKey`, their outcomes sealed to keys of `replySecret`.
public struct RequestSealer: RequestSealing {
    public let publicKey: SealingPublicKey
    public let replySecret: ReplySecret

    public init(publicKey: SealingPublicKey, replySecret: ReplySecret = .generate()) {
        self.publicKey = publicKey
        self.replySecret = replySecret
    }
}
