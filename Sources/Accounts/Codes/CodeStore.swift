import Domain
import Foundation

/// The codes of every email and purpose (only keyed hashes are stored, and the nonce of an outstanding code).
public protocol CodeStore: Sendable {
    /// Runs `body` on the record of `email` and `purpose` (nil when there is none) in one transaction
    /// and saves what it leaves there; when `body` throws, nothing is saved.
    func update<T: Sendable>(email: String, purpose: CodePurpose,
                             _ body: (inout CodeRecord?) throws(StoreError) -> T) throws(StoreError) -> T
    /// Deletes the records (of every email and purpose) whose code expired before `date` (the sweep: the resend limits
    /// look back an hour at most, so a `date` a day or more ago forgets nothing they need); returns how many.
    @discardableResult
    func forgetCodes(expiredBefore date: Date) throws(StoreError) -> Int
}

/// The cryptography of codes, implemented with libsodium outside the domain.
public protocol CodeSecrets: Sendable {
    /// A fresh random value to derive a code from (see ``CodeRecord/nonce``).
    func newNonce() -> String
    /// The six-digit code derived from `nonce` with the server secret: the same nonce, the same code.
    func code(from nonce: String) -> String
    /// The recovery form of the code of `nonce` (``CodeForm/recovery``): 20 base32 characters, normalised.
    func recoveryCode(from nonce: String) -> String
    /// HMAC-SHA256 (hex) of `purpose|email|code` with the server secret.
    func digest(of code: String, purpose: CodePurpose, email: String) -> String
}
