import Foundation

/// The caller's data: `sealedExport` is an ``AccountExport`` (JSON) sealed to the request's `replyKey`.
@PublicInit
public struct ExportAnswered: RequestMessage, Equatable {
    public var requestId: String
    public var sealedExport: String
}

/// What `ExportAnswered.sealedExport` opens to: the account (no password hash, no token, no code), its profile, its live
/// sessions and the history of its requests. Times are Unix seconds.
@PublicInit
public struct AccountExport: SealedAnswer, Equatable {
    public static let purpose = AnswerPurpose.export
    public var requestId: String
    public var exportedAt: Date
    public var account: ExportedAccount
    /// Nil when the account has no profile (yet).
    public var profile: Profile?
    public var sessions: [SessionView]
    /// The account's requests that Registrar recorded, oldest first.
    public var history: [ExportedRequest]
}

extension AccountExport {
    /// The export as its owner reads it (`GET /me/export`, `registrar export`): the sealed payload without its request id
    /// and purpose, keys sorted, times in ISO 8601.
    public var document: [UInt8] {
        struct Document: Encodable {
            var exportedAt: Date
            var account: ExportedAccount
            var profile: Profile?
            var sessions: [SessionView]
            var history: [ExportedRequest]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        // Encoding plain Codable structs of strings, dates and booleans cannot fail.
        return Array(try! encoder.encode(Document(exportedAt: exportedAt, account: account, profile: profile, sessions: sessions,
                                                  history: history)))
    }
}

/// The account's own fields, as its owner may see them.
@PublicInit
public struct ExportedAccount: Codable, Sendable, Equatable {
    public var uid: String
    public var email: String
    public var status: String
    public var createdAt: Date
    /// Whether a password is set (never the password or its hash).
    public var hasPassword: Bool
}

/// One recorded request of the account: its type (`registration`, or an account change's kind), when it was last
/// moved, and where it ended (`completed`, `failed`, or a stage still in progress).
@PublicInit
public struct ExportedRequest: Codable, Sendable, Equatable {
    public var type: String
    public var at: Date
    public var outcome: String
}
