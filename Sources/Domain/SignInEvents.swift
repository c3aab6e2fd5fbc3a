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
@PublicInit
public struct TokenRequested: RequestMessage, Equatable {
    public var requestId: String
    public var grantType: GrantType
    /// The account's email; not used by `refresh_token`.
    public var email: String?
    public var sealedCredential: String
    public var sealedCode: String? = nil
    public var replyKey: String
    /// The OAuth client the gateway authenticated (as a Kafka client names itself): what the session lists.
    public var clientId: String? = nil
}

/// Tokens were issued. `sealedTokens` is `{"uid":…,"accessToken":…,"refreshToken":…}` sealed to the request's
/// `replyKey` (no personal data travels in the clear); the access token is an EdDSA JWT valid for `expiresIn`
/// seconds. `accountCreated` says the sign-in registered the account just now.
@PublicInit
public struct TokenIssued: RequestMessage, Equatable {
    public var requestId: String
    public var sealedTokens: String
    public var tokenType: String = "Bearer"
    public var expiresIn: Int
    public var accountCreated: Bool
}

/// A request was refused: `TokenRefused` (no token; wrong, unknown, expired and locked-out
/// credentials all give `invalid_credentials`) and `AccountChangeFailed` (the account is as it was).
@PublicInit
public struct RequestRefusal: RequestMessage, Equatable {
    public var requestId: String
    public var reason: ReasonCode
    public var message: String
}

/// Published by a client to `auth.requests` for something of the caller's account: `sealedAccessToken` is the Bearer
/// access token sealed to the account worker's public key (no email in its seal context); the answer is sealed back to
/// `replyKey`. Its event type says what it asks for: `ProfileRequested` the profile (`GET /me`), `SessionsRequested` the
/// live sessions (`GET /me/sessions`), both sealed for purpose `access_token`; `ExportRequested` a copy of everything
/// Registrar stores about the account (`GET /me/export`, GDPR Art. 15 and 20), sealed for purpose `export`, from a
/// session signed in within the worker's re-authentication window.
@PublicInit
public struct BearerRequest: RequestMessage, Equatable {
    public var requestId: String
    public var sealedAccessToken: String
    public var replyKey: String
}

/// A profile answered to a request: `sealedProfile` is a ``ProfileView`` (JSON) sealed to the request's `replyKey`
/// (``ProfileAnswered``, ``ProfileUpdated``).
@PublicInit
public struct SealedProfile: RequestMessage, Equatable {
    public var requestId: String
    public var sealedProfile: String
}

/// The caller's profile: `sealedProfile` is a ``ProfileView`` (JSON) sealed to the request's `replyKey`.
/// A token that does not verify gives `TokenRefused` `invalid_credentials`, an incomplete profile `profile_incomplete`.
public typealias ProfileAnswered = SealedProfile

/// What `ProfileAnswered.sealedProfile` opens to: the request it answers, the account's uid and its profile.
@PublicInit
public struct ProfileView: SealedAnswer, Equatable {
    public static let purpose = AnswerPurpose.profile
    public var requestId: String
    public var uid: String
    public var name: String
    public var email: String
    public var profileImage: String
    public var isMapLocationEnabled: Bool
}

extension ProfileView {
    /// The view of `profile`, the profile of account `uid`, answering request `requestId`.
    public init(requestId: String, uid: String, profile: Profile) {
        self.init(requestId: requestId, uid: uid, name: profile.name, email: profile.email, profileImage: profile.profileImage,
                  isMapLocationEnabled: profile.isMapLocationEnabled)
    }
}
