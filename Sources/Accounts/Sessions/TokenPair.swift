import Domain

/// What `TokenIssued.sealedTokens` opens to: the request it answers, the account's uid and its tokens.
public struct TokenPair: SealedAnswer, Equatable {
    public static let purpose = AnswerPurpose.tokens
    public var requestId: String
    public var purpose: AnswerPurpose
    public var uid: String
    public var accessToken: String
    public var refreshToken: String

    public init(requestId: String, uid: String, accessToken: String, refreshToken: String) {
        self.requestId = requestId
        purpose = Self.purpose
        self.uid = uid
        self.accessToken = accessToken
        self.refreshToken = refreshToken
    }
}
