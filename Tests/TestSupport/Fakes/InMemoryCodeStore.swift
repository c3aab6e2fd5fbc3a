import Domain
import Foundation
import Synchronization
import Verification

/// Code records in memory, each update one transaction.
public final class InMemoryCodeStore: CodeStore {
    private let records = Mutex<[String: CodeRecord]>([:])
    /// Raised by every update.
    public let updates = Fault()

    public init() {}

    public func update<T: Sendable>(email: String, purpose: CodePurpose,
                                    _ body: (inout CodeRecord?) throws(StoreError) -> T) throws(StoreError) -> T {
        try updates.check()
        return try records.withLock { (records) throws(StoreError) -> T in
            var record = records[email + "|" + purpose.rawValue]
            let result = try body(&record)
            records[email + "|" + purpose.rawValue] = record
            return result
        }
    }

    @discardableResult
    public func forgetCodes(expiredBefore date: Date) throws(StoreError) -> Int {
        records.withLock { records in
            let before = records.count
            records = records.filter { $0.value.expiresAt >= date }
            return before - records.count
        }
    }

    /// Records `code` as the current code of `email` and `purpose`, as the code dispatch step issues it at `date`, with
    /// `recovery` as its recovery form when given.
    public func issue(_ code: String, recovery: String? = nil, to email: String, _ purpose: CodePurpose, secrets: any CodeSecrets,
                      at date: Date) {
        let digest = secrets.digest(of: code, purpose: purpose, email: email)
        records.withLock { records in
            let key = email + "|" + purpose.rawValue
            records[key] = CodeRules().issued(records[key], email: email, purpose: purpose, digest: digest,
                                              recoveryDigest: recovery.map { secrets.digest(of: $0, purpose: purpose, email: email) },
                                              nonce: nil, requestId: "code-request", at: date)
        }
    }

    /// The record of `email` and `purpose`, as stored.
    public func record(_ email: String, _ purpose: CodePurpose) -> CodeRecord? {
        records.withLock { $0[email + "|" + purpose.rawValue] }
    }
}

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
