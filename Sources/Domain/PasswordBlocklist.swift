/// Commonly used, expected or compromised passwords (NIST SP 800-63B §3.1.1.2), implemented outside the
/// domain (a dictionary library).
public protocol PasswordBlocklist: Sendable {
    /// Whether `password` is on the list, or derived from a word on it.
    func isCommon(_ password: String) -> Bool
}
