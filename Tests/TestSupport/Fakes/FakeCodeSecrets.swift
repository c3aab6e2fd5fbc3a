import Domain
import Foundation
import Synchronization
import Verification

/// Code secrets without a key: nonces count up, the code of nonce `n` is `n` in six digits.
public final class FakeCodeSecrets: CodeSecrets {
    private let issued = Mutex(0)

    public init() {}

    public func newNonce() -> String {
        String(issued.withLock { count in
            count += 1
            return count
        })
    }

    public func code(from nonce: String) -> String {
        String(repeating: "0", count: max(0, 6 - nonce.count)) + nonce
    }

    /// `RECOVERY` and the nonce in base32 letters, padded with `A`s to 20 characters.
    public func recoveryCode(from nonce: String) -> String {
        let letters = "RECOVERY" + nonce.map { "ABCDEFGHIJ"[String.Index(utf16Offset: Int(String($0)) ?? 0, in: "ABCDEFGHIJ")] }
        return String(letters.prefix(20)) + String(repeating: "A", count: max(0, 20 - letters.count))
    }

    public func digest(of code: String, purpose: CodePurpose, email: String) -> String {
        "\(purpose.rawValue)|\(email)|\(code)"
    }
}
