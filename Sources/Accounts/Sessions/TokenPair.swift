import Domain

/// What `TokenIssued.sealedTokens` opens to: the request it answers, the account's uid and its tokens.
@PublicInit
public struct TokenPair: SealedAnswer, Equatable {
    public static let purpose = AnswerPurpose.tokens
    public var requestId: String
    public var uid: String
    public var accessToken: String
    public var refreshToken: String
}
