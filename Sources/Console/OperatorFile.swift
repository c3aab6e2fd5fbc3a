import Crypto
import Foundation
import Support

/// The console's operators: one a line, `name:hash`, the hash an argon2id PHC string of the operator's password
/// (`registrar console add-operator` writes them). The file must be the owner's alone (0600; refused, with the
/// chmod that fixes it, when open to group or others), like `htpasswd` files of web servers. A password is checked
/// against its hash by libsodium in constant time; an unknown name against a decoy hash, so that both take the
/// time of one argon2id hash.
public struct OperatorFile: Sendable {
    /// `[A-Za-z0-9._-]`, 1 to 64 characters: what a name may be (it is shown in the console's log lines).
    public static func isValidName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count) && name.utf8.allSatisfy { byte in
            ("a"..."z").contains(Character(UnicodeScalar(byte))) || ("A"..."Z").contains(Character(UnicodeScalar(byte)))
                || ("0"..."9").contains(Character(UnicodeScalar(byte))) || "._-".utf8.contains(byte)
        }
    }

    /// The fewest characters a password may have: the console can republish any dead letter.
    public static let minimumPasswordLength = 12

    private let hashes: [String: String]
    private let hasher: PasswordHasher
    private let decoy: String

    /// The operators in the file at `path`; throws when it cannot be read, is open to others, or has no operator.
    public init(contentsOf path: String, hasher: PasswordHasher = PasswordHasher()) throws {
        try PrivateFiles.check(path)
        guard let data = FileManager.default.contents(atPath: path) else { throw OperatorFileError("cannot read \(path)") }
        let entries = try Self.entries(in: String(decoding: data, as: UTF8.self), path: path)
        guard !entries.isEmpty else {
            throw OperatorFileError("\(path) names no operator; add one with `registrar console add-operator NAME --operators \(path)`")
        }
        hashes = Dictionary(entries, uniquingKeysWith: { _, last in last })
        self.hasher = hasher
        decoy = try hasher.hash(SecureRandom.token(bytes: 16))
    }

    /// Whether `password` is the password of the operator `name`.
    public func verify(name: String, password: String) -> Bool {
        let hash = hashes[name]
        let matches = hasher.verify(password, against: hash ?? decoy)
        return matches && hash != nil
    }

    /// Adds the operator `name` with `password` to the file at `path` (or replaces their password), creating it 0600
    /// if missing; the file is rewritten whole, atomically.
    public static func add(_ name: String, password: String, to path: String, hasher: PasswordHasher = PasswordHasher()) throws {
        guard isValidName(name) else { throw OperatorFileError("an operator's name is 1 to 64 letters, digits, '.', '_' or '-'") }
        guard password.count >= minimumPasswordLength else {
            throw OperatorFileError("an operator's password has at least \(minimumPasswordLength) characters")
        }
        try PrivateFiles.check(path)
        let existing = FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) } ?? ""
        var entries = try Self.entries(in: existing, path: path).filter { $0.0 != name }
        entries.append((name, try hasher.hash(password)))
        let text = entries.map { "\($0.0):\($0.1)\n" }.joined()
        let temporary = path + ".\(UUID().uuidString.prefix(8)).tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw OperatorFileError("cannot write \(temporary)")
        }
        guard rename(temporary, path) == 0 else {
            unlink(temporary)
            throw OperatorFileError("cannot replace \(path): \(String(cString: strerror(errno)))")
        }
    }

    private static func entries(in text: String, path: String) throws -> [(String, String)] {
        try text.split(whereSeparator: \.isNewline).enumerated().compactMap { index, line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { return nil }
            let parts = trimmed.split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2, isValidName(parts[0]), parts[1].hasPrefix("$argon2id$") else {
                throw OperatorFileError("\(path) line \(index + 1) is not name:argon2id-hash")  // the line itself may hold a secret
            }
            return (parts[0], parts[1])
        }
    }
}

/// An operators file that cannot be used.
public struct OperatorFileError: Error, CustomStringConvertible {
    public var description: String

    init(_ description: String) { self.description = description }
}
