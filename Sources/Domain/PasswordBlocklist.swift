/// Commonly used, expected or compromised passwords (NIST SP 800-63B §3.1.1.2), implemented outside the
/// domain (a dictionary library, a guess estimator).
public protocol PasswordBlocklist: Sendable {
    /// Whether `password` is on the list, or derived from a word on it.
    func isCommon(_ password: String) -> Bool
    /// Whether `password` is common, or derived from one of `related` (words of the account: the email's parts,
    /// the name), which an attacker tries first. By default `related` is not looked at.
    func isCommon(_ password: String, related: [String]) -> Bool
}

extension PasswordBlocklist {
    public func isCommon(_ password: String, related: [String]) -> Bool { isCommon(password) }
}
