import Crypto
import Foundation

extension SealingPublicKey {
    /// `secret` sealed to this key (the account worker's), base64: how requests carry passwords, codes and tokens.
    public func sealedBase64(_ secret: [UInt8]) -> String {
        Data(seal(secret)).base64EncodedString()
    }

    /// `secret`'s UTF-8 sealed to this key, base64.
    public func sealedBase64(_ secret: String) -> String { sealedBase64(Array(secret.utf8)) }
}
