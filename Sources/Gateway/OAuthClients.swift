import Crypto
import Foundation

/// The OAuth 2.0 clients the token endpoint authenticates (RFC 6749 §2.3.1), read from a JSON file
/// `{"clients": [{"id": "…", "secret": "…"}]}`. Secrets are kept and compared as SHA-256 digests, in constant time.
public struct OAuthClients: Sendable {
    struct Client: Codable, Sendable {
        var id: String
        var secret: String
    }

    private struct File: Codable { var clients: [Client] }

    private let digests: [String: [UInt8]]

    init(_ clients: [Client]) {
        digests = Dictionary(clients.map { ($0.id, sha256(Array($0.secret.utf8))) }, uniquingKeysWith: { first, _ in first })
    }

    /// Reads the clients from `path`.
    public static func load(from path: String) throws -> OAuthClients {
        do {
            return OAuthClients(try JSONDecoder().decode(File.self, from: Data(contentsOf: URL(fileURLWithPath: path))).clients)
        } catch {
            throw GatewayError("cannot read the OAuth clients from \(path): \(error)")
        }
    }

    /// Whether `id` is a configured client and `secret` its secret.
    func authenticates(id: String, secret: String) -> Bool {
        let digest = sha256(Array(secret.utf8))
        let known = digests[id] != nil
        return constantTimeEquals(digest, digests[id] ?? digest) && known
    }
}

/// A gateway that cannot start: its configuration is unusable.
public struct GatewayError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
