import Foundation

/// What a client seals to the account worker's public key (a libsodium sealed box of this JSON, base64): a secret
/// bound to the message it is for, so that a copy in any other message, or later, or with another request id, is refused.
public struct SealedSecret: Codable, Sendable, Equatable {
    /// What the secret is for; a seal only counts in the field of its purpose.
    public enum Purpose: String, Codable, Sendable, CaseIterable {
        /// `RegistrationRequested.sealedPassword`.
        case registrationPassword = "registration_password"
        /// `TokenRequested.sealedCredential` of the `password` grant.
        case signInPassword = "sign_in_password"
        /// The current password that re-authenticates an account change (`sealedPassword` of a change).
        case reauthentication
        /// `sealedNewPassword` of a password change or reset.
        case newPassword = "new_password"
        /// A one-time code (`TokenRequested` of the `email` grant, `sealedCode` of a change).
        case code
        /// `TokenRequested.sealedCredential` of the `refresh_token` grant.
        case refreshToken = "refresh_token"
        /// `ProfileRequested.sealedAccessToken`.
        case accessToken = "access_token"
        /// `SignOutRequested.sealedToken` of a revocation (RFC 7009): a refresh or an access token.
        case revocation
        /// `SignOutRequested.sealedToken` (an access token) ending one session: its own, or the one `sessionId` names.
        case signOut = "sign_out"
        /// `SignOutRequested.sealedToken` (an access token) ending every session of its account.
        case signOutEverywhere = "sign_out_everywhere"
        /// `ExportRequested.sealedAccessToken`.
        case export
        /// `AccountDeletionRequested.sealedAccessToken`.
        case deleteAccount = "delete_account"
        /// `ProfileUpdateRequested.sealedAccessToken`.
        case updateProfile = "update_profile"
    }

    public var purpose: Purpose
    /// The message's request id (a registration's `registrationId`).
    public var requestId: String
    /// The message's `email` (nil for a refresh, whose message has none); compared normalised.
    public var email: String?
    /// The lower-case hex SHA-256 of the message's `replyKey` as it is written there (its base64 text, UTF-8).
    public var replyKeyFingerprint: String
    /// When the client sealed it, in Unix seconds.
    public var sealedAt: Int
    /// The password, code or token.
    public var secret: String
    /// The message's `sessionId` (a sign-out naming a session), so that no copy of the message names another; nil
    /// (absent) for every other message.
    public var sessionId: String?

    public init(purpose: Purpose, requestId: String, email: String?, replyKeyFingerprint: String, sealedAt: Int, secret: String,
                sessionId: String? = nil) {
        self.purpose = purpose
        self.requestId = requestId
        self.email = email
        self.replyKeyFingerprint = replyKeyFingerprint
        self.sealedAt = sealedAt
        self.secret = secret
        self.sessionId = sessionId
    }

    /// The JSON a client seals.
    public var encoded: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return Array(try! encoder.encode(self))
    }

    /// The secret of an opened seal's plaintext, or nil when it is not one.
    public static func decode(_ plaintext: String) -> SealedSecret? {
        try? JSONDecoder().decode(SealedSecret.self, from: Data(plaintext.utf8))
    }
}

/// The message a seal arrived in, which every field of the seal must match.
public struct SealContext: Sendable, Equatable {
    public var requestId: String
    public var email: String?
    public var replyKey: String
    /// The session a sign-out names, if any.
    public var sessionId: String?

    public init(requestId: String, email: String?, replyKey: String, sessionId: String? = nil) {
        self.requestId = requestId
        self.email = email
        self.replyKey = replyKey
        self.sessionId = sessionId
    }
}

extension GrantType {
    /// The purpose a credential of this grant is sealed for.
    public var sealPurpose: SealedSecret.Purpose {
        switch self {
        case .password: .signInPassword
        case .email: .code
        case .refreshToken: .refreshToken
        }
    }
}
