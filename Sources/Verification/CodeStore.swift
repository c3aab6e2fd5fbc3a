import Domain

/// The codes of every email and purpose (only keyed hashes are stored).
public protocol CodeStore: Sendable {
    /// Runs `body` on the record of `email` and `purpose` (nil when there is none) in one transaction
    /// and saves what it leaves there; when `body` throws, nothing is saved.
    func update<T: Sendable>(email: String, purpose: CodePurpose,
                             _ body: (inout CodeRecord?) throws(StoreError) -> T) throws(StoreError) -> T
}

/// The cryptography of codes, implemented with libsodium outside the domain.
public protocol CodeSecrets: Sendable {
    /// A fresh random value to derive a code from (see ``CodeRecord/pendingNonce``).
    func newNonce() -> String
    /// The six-digit code derived from `nonce` with the server secret: the same nonce, the same code.
    func code(from nonce: String) -> String
    /// HMAC-SHA256 (hex) of `purpose|email|code` with the server secret.
    func digest(of code: String, purpose: CodePurpose, email: String) -> String
}
