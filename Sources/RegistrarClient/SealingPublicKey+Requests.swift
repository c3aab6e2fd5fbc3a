import Crypto
import Domain
import Foundation

extension SealingPublicKey {
    /// `secret` sealed to this key (the account worker's) as a ``SealedSecret`` for `purpose` in the message `context`,
    /// stamped `date`, base64: how requests carry passwords, codes and refresh tokens.
    public func sealedBase64(_ secret: String, for purpose: SealedSecret.Purpose, in context: SealContext, at date: Date = Date()) -> String {
        let sealed = SealedSecret(purpose: purpose, requestId: context.requestId, email: context.email,
                                  replyKeyFingerprint: sha256Hex(Array(context.replyKey.utf8)),
                                  sealedAt: Int(date.timeIntervalSince1970), secret: secret, sessionId: context.sessionId)
        return Data(seal(sealed.encoded)).base64EncodedString()
    }
}
