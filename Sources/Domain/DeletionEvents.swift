/// Published by a client to `account.requests` to delete the caller's account for good (`DELETE /me`; App Store Review
/// Guideline 5.1.1(v), GDPR Art. 17): `sealedAccessToken` is the Bearer access token sealed (purpose `delete_account`) to
/// the account worker's public key; its session must have signed in within the worker's re-authentication window. The
/// caller proves it is the owner now with exactly one credential, bound like every seal to the request's id and reply
/// key: `sealedPassword` (purpose `reauthentication`), the account's password, or `sealedCode` (purpose `code`), a
/// `delete_account` code mailed to the account's address. Answered `AccountDeleted` once the avatar, the profile and
/// the account are gone, or `AccountChangeFailed`.
@PublicInit
public struct AccountDeletionRequested: RequestMessage, Equatable {
    public var requestId: String
    public var sealedAccessToken: String
    public var sealedPassword: String? = nil
    public var sealedCode: String? = nil
    public var replyKey: String
    /// The language of the notice mailed to the account's address: a BCP 47 tag or a priority list of them.
    public var locale: String? = nil
}

/// The account of an ``AccountDeletionRequested`` is gone from every store; its address is free to register again.
public typealias AccountDeleted = RequestDone

/// A step of an account deletion (`EraseAvatar`) or of a profile update (`DiscardAvatar`), to the image worker: delete the
/// avatar `ProfileImages/<imageId>.jpg` for good (its tombstone keeps any older command from storing it again).
@PublicInit
public struct EraseAvatar: SagaCommand, RequestMessage, Equatable {
    public var requestId: String
    public var uid: String
    public var imageId: String
    public var step: String
    public var revision: Int
}

/// The image worker's answer to ``EraseAvatar`` (`AvatarErased`, `AvatarDiscarded`): the avatar is gone (or was never there).
@PublicInit
public struct AvatarErased: RequestMessage, Equatable {
    public var requestId: String
    public var uid: String
    public var imageId: String
}

/// A step of an account deletion, to the profile worker: delete `users/<uid>` for good (the uid's revision, kept, refuses
/// any older command).
@PublicInit
public struct EraseProfile: SagaCommand, RequestMessage, Equatable {
    public var requestId: String
    public var uid: String
    public var step: String
    public var revision: Int
}

/// What the profile worker says of an account's profile in a request's flow when nothing more than whose: ``ProfileErased``,
/// ``ProfileEmailWaiting``.
@PublicInit
public struct RequestProfileNotice: RequestMessage, Equatable {
    public var requestId: String
    public var uid: String
}

/// The profile worker's answer to ``EraseProfile``: the profile is gone (or was never there).
public typealias ProfileErased = RequestProfileNotice
