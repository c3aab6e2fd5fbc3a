import Foundation

/// The registration rules (the messenger app's checks, made standard).
public struct RegistrationRules: Sendable {
    /// Shortest password accepted; NIST asks for 8, the original apps allowed 6.
    public var minimumPasswordLength: Int
    public var maximumPasswordLength = ContractLimits.maximumPasswordCharacters
    public var maximumNameLength = ContractLimits.nameCharacters
    /// In UTF-8 bytes.
    public var maximumEmailLength = ContractLimits.emailBytes
    /// Common passwords, refused for new passwords (registration, change, reset, all through ``validate(password:email:)``);
    /// none when nil.
    public var blocklist: (any PasswordBlocklist)?

    public init(minimumPasswordLength: Int = ContractLimits.minimumPasswordCharacters, blocklist: (any PasswordBlocklist)? = nil) {
        self.minimumPasswordLength = minimumPasswordLength
        self.blocklist = blocklist
    }

    /// The normalised email (trimmed, lower-cased): the identity accounts are unique by.
    public static func normalizedEmail(_ email: String) -> String {
        email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }

    /// The name as stored (trimmed).
    public static func normalizedName(_ name: String) -> String {
        name.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Checks a name, returning the first rule it breaks.
    public func validate(name: String) -> Failure? {
        let name = Self.normalizedName(name)
        if name.isEmpty { return Failure(.nameEmpty, "The name must not be empty.") }
        if name.count > maximumNameLength {
            return Failure(.nameTooLong, "The name must be at most \(maximumNameLength) characters.")
        }
        return nil
    }

    /// Checks an email address (already normalised or not).
    public func validate(email: String) -> Failure? {
        let email = Self.normalizedEmail(email)
        if email.utf8.count > maximumEmailLength {
            return Failure(.emailTooLong, "The email address must be at most \(maximumEmailLength) bytes.")
        }
        if !Self.isSyntacticallyValid(email) {
            return Failure(.emailInvalid, "The email address is not valid.")
        }
        return nil
    }

    /// Checks a new password against the length rules, the email it belongs to and the blocklist.
    public func validate(password: String, email: String) -> Failure? {
        if password.count < minimumPasswordLength {
            return Failure(.passwordTooShort, "The password must be at least \(minimumPasswordLength) characters.")
        }
        if password.count > maximumPasswordLength {
            return Failure(.passwordTooLong, "The password must be at most \(maximumPasswordLength) characters.")
        }
        if Self.normalizedEmail(password) == Self.normalizedEmail(email) {
            return Failure(.passwordEqualsEmail, "The password must not be the email address.")
        }
        if blocklist?.isCommon(password, related: Self.relatedWords(of: email)) == true {
            return Failure(.passwordTooCommon, "The password is too common; a few unrelated words make a good one.")
        }
        return nil
    }

    /// The words of an email an attacker tries first in its password: the local part and the domain's labels.
    static func relatedWords(of email: String) -> [String] {
        normalizedEmail(email).split(whereSeparator: { $0 == "@" || $0 == "." }).map(String.init)
    }

    /// A practical subset of RFC 5321/5322 addresses: `local@domain` with a dotted domain of
    /// letters, digits and hyphens, and a local part of atext characters and non-adjacent dots.
    static func isSyntacticallyValid(_ email: String) -> Bool {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, let local = parts.first, let domain = parts.last else { return false }
        let atext = Set("abcdefghijklmnopqrstuvwxyz0123456789!#$%&'*+-/=?^_`{|}~")
        guard (1...64).contains(local.utf8.count), !local.hasPrefix("."), !local.hasSuffix("."),
              !local.contains(".."), local.allSatisfy({ atext.contains($0) || $0 == "." }) else { return false }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2 else { return false }
        let labelCharacters = Set("abcdefghijklmnopqrstuvwxyz0123456789-")
        return labels.allSatisfy { label in
            (1...63).contains(label.count) && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.allSatisfy { labelCharacters.contains($0) }
        } && labels.last!.allSatisfy(\.isLetter)
    }
}
