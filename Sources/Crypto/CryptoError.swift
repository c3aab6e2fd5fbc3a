/// A failure of a cryptographic operation or of reading or writing key material.
public enum CryptoError: Error, Sendable, Equatable {
    /// Password hashing failed, usually because the memory limit could not be allocated.
    case hashingFailed
    /// A sealed box could not be opened: it was tampered with, truncated or sealed for another key.
    case openFailed
    /// Key bytes or their text form are malformed or of the wrong length.
    case invalidKey
    /// A key file could not be read or written; `reason` never contains key material.
    case keyFile(path: String, reason: String)
}
