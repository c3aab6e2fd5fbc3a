import Crypto
import Domain

/// Builds Registrar's requests as a client publishes them — each secret sealed to the account worker's public key for
/// its field and request, with the reply key the outcome's details are sealed to — and opens those details.
/// `RegistrarClient` builds its requests so; `RequestSealer` does without a broker (requests published by other
/// means, the Kafka-free test tier).
public protocol RequestSealing: Sendable {
    /// The account worker's public key, which secrets are sealed to.
    var publicKey: SealingPublicKey { get }
    /// The key pair whose public key requests carry as `replyKey`: outcomes seal their details to it.
    var replyKeys: SealingKeyPair { get }
}

extension RequestSealing {
    /// The reply key (base64), as requests carry it.
    public var replyKey: String { replyKeys.publicKey.base64 }

    /// `secret` sealed to the account worker's public key for `purpose` in request `requestId` of `email`
    /// (with this reply key), base64, as requests carry it.
    public func seal(_ secret: String, for purpose: SealedSecret.Purpose, requestId: String, email: String?) -> String {
        publicKey.sealedBase64(secret, for: purpose, in: SealContext(requestId: requestId, email: email, replyKey: replyKey))
    }
}

/// Requests sealed for the account worker whose public key is `publicKey`, their outcomes sealed to `replyKeys`.
public struct RequestSealer: RequestSealing {
    public let publicKey: SealingPublicKey
    public let replyKeys: SealingKeyPair

    public init(publicKey: SealingPublicKey, replyKeys: SealingKeyPair = .generate()) {
        self.publicKey = publicKey
        self.replyKeys = replyKeys
    }
}
