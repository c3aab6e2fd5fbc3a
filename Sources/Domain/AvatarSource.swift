/// Where an avatar's original bytes are: inline in the message (small images), or staged in the
/// object store and referenced by key (a claim check, for images larger than a message should be).
public enum AvatarSource: Codable, Sendable, Equatable {
    /// Base64 of the original bytes.
    case inline(String)
    /// A staged object: its key (exactly `staging/<registrationId>` of its request; the image worker
    /// reads no other), SHA-256 (hex) and size in bytes.
    case staged(key: String, sha256: String, size: Int)

    private enum CodingKeys: String, CodingKey { case inline, staged }
    private struct Staged: Codable { var key: String; var sha256: String; var size: Int }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let data = try container.decodeIfPresent(String.self, forKey: .inline) {
            self = .inline(data)
        } else {
            let staged = try container.decode(Staged.self, forKey: .staged)
            self = .staged(key: staged.key, sha256: staged.sha256, size: staged.size)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .inline(let data): try container.encode(data, forKey: .inline)
        case .staged(let key, let sha256, let size):
            try container.encode(Staged(key: key, sha256: sha256, size: size), forKey: .staged)
        }
    }

    /// Inline sources up to this many original bytes; larger ones are staged.
    public static let inlineLimit = 256 * 1024
}
