import Domain

/// A blocklist of a few well-known passwords, standing for libpwquality's dictionary.
public struct FakeBlocklist: PasswordBlocklist {
    public static let common: Set<String> = ["password", "12345678", "qwertyuiop"]

    public init() {}

    public func isCommon(_ password: String) -> Bool { Self.common.contains(password) }
}
