/// How a token request proves who it is for (OAuth 2.0 `grant_type`).
public enum GrantType: String, Codable, Sendable, CaseIterable {
    /// Email and password.
    case password
    /// Email and a one-time code (purpose `login`, or `register` for a new account).
    case email
    /// A refresh token, which is rotated.
    case refreshToken = "refresh_token"
}

/// Published by a client to `auth.requests`. `sealedCredential` is the password, the code or the
/// refresh token (per `grantType`) sealed to the account worker's public key; `replyKey` is a fresh
/// X25519 public key (base64) of the client, to which the issued tokens are sealed. A `password` grant
/// may carry `sealedCode`, a `login` code mailed to the address: an account whose mailbox was never proven
/// (made before registrations needed a code) answers its right password with `email_unverified` until a
/// sign-in brings one.
public struct TokenRequested: RequestMessage, Equatable {
    public var requestId: String
    public var grantType: GrantType
    /// The account's email; not used by `refresh_token`.
    public var email: String?
    public var sealedCredential: String
    public var sealedCode: String?
    public var replyKey: String
    /// The OAuth client the gateway authenticated (as a Kafka client names itself): what the session lists.
    public var clientId: String?

    public init(requestId: String, grantType: GrantType, email: String?, sealedCredential: String, sealedCode: String? = nil,
                replyKey: String, clientId: String? = nil) {
        self.requestId = requestId
        self.grantType = grantType
        self.email = email
        self.sealedCredential = sealedCredential
        self.sealedCode = sealedCode
        self.replyKey = replyKey
        self.clientId = clientId
    }
}

/// Tokens were issued. `sealedTokens` is `{"uid":…,"accessToken":…,"refreshToken":…}` sealed to the request's
/// `replyKey` (no personal data travels in the clear); the access token is an EdDSA JWT valid for `expiresIn`
/// seconds. `accountCreated` says the sign-in registered the account just now.
public struct TokenIssued: RequestMessage, Equatable {
    public var requestId: String
    public var sealedTokens: String
    public var tokenType: String
    public var expiresIn: Int
    public var accountCreated: Bool

    public init(requestId: String, sealedTokens: String, tokenType: String = "Bearer", expiresIn: Int, accountCreated: Bool) {
        self.requestId = requestId
        self.sealedTokens = sealedTokens
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.accountCreated = accountCreated
    }
}

/// A request was refused: `TokenRefused` (no token; wrong, unknown, expired and locked-out
/// credentials all give `invalid_credentials`) and `AccountChangeFailed` (the account is as it was).
public struct RequestRefusal: RequestMessage, Equatable {
    public var requestId: String
    public var reason: ReasonCode
    public var message: String

    public init(requestId: String, reason: ReasonCode, message: String) {
        self.requestId = requestId
        self.reason = reason
        self.message = message
    }
}

/// Published by a client to `auth.requests` for something of the caller's account: `sealedAccessToken` is the Bearer
/// access token sealed to the account worker's public key (no email in its seal context); the answer is sealed back to
/// `replyKey`. Its event type says what it asks for: `ProfileRequested` the profile (`GET /me`), `SessionsRequested` the
/// live sessions (`GET /me/sessions`), both sealed for purpose `access_token`; `ExportRequested` a copy of everything
/// Registrar stores about the account (`GET /me/export`, GDPR Art. 15 and 20), sealed for purpose `export`, from a
/// session signed in within the worker's re-authentication window.
public struct BearerRequest: RequestMessage, Equatable {
    public var requestId: String
    public var sealedAccessToken: String
    public var replyKey: String

    public init(requestId: String, sealedAccessToken: String, replyKey: String) {
        self.requestId = requestId
        self.sealedAccessToken = sealedAccessToken
        self.replyKey = replyKey
    }
}

/// A profile answered to a request: `sealedProfile` is a ``ProfileView`` (JSON) sealed to the request's `replyKey`
/// (``ProfileAnswered``, ``ProfileUpdated``).
public struct SealedProfile: RequestMessage, Equatable {
    public var requestId: String
    public var sealedProfile: String

    public init(requestId: String, sealedProfile: String) {
        self.requestId = requestId
        self.sealedProfile = sealedProfile
    }
}

/// The caller's profile: `sealedProfile` is a ``ProfileView`` (JSON) sealed to the request's `replyKey`.
/// A token that does not verify gives `TokenRefused` `invalid_credentials`, an incomplete profile `profile_incomplete`.
public typealias ProfileAnswered = SealedProfile

/// What `ProfileAnswered.sealedProfile` opens to: the request it answers, the account's uid and its profile.
public struct ProfileView: SealedAnswer, Equatable {
    public static let purpose = AnswerPurpose.profile
    public var requestId: String
    public var purpose: AnswerPurpose
    public var uid: String
    public var name: String
    public var email: String
    public var profileImage: String
    public var isMapLocationEnabled: Bool

    public init(requestId: String, uid: String, profile: Profile) {
        self.requestId = requestId
        purpose = Self.purpose
        self.uid = uid
        name = profile.name
        email = profile.email
        profileImage = profile.profileImage
        isMapLocationEnabled = profile.isMapLocationEnabled
    }
}
