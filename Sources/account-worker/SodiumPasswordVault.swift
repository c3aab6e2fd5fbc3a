import Crypto
import Foundation
import Domain
import Registration

/// The account worker's `PasswordVault`: opens libsodium sealed boxes with the worker's key pair
/// and hashes with argon2id.
struct SodiumPasswordVault: PasswordVault {
    var keys: SealingKeyPair
    var hasher: PasswordHasher

    func unseal(_ sealedBase64: String) -> String? {
        guard let sealed = Data(base64Encoded: sealedBase64),
              let plaintext = try? keys.open(Array(sealed)) else { return nil }
        return String(validating: plaintext, as: UTF8.self)
    }

    func hash(_ password: String) throws -> String {
        try hasher.hash(password)
    }
}
