/// Published by a client to `account.requests` to change the caller's profile (`PATCH /me`): `sealedAccessToken` is the
/// Bearer access token sealed (purpose `update_profile`) to the account worker's public key, bound like every seal to the
/// request's id and reply key. Each field left out stays as it is; at least one is given. `name` and the avatar are
/// checked as a registration's are (same reason codes). A new avatar is stored under a new `ProfileImages/<uuid>.jpg`,
/// the profile switched to it, and only then the old one deleted. Answered `ProfileUpdated` (the profile as it now is,
/// sealed to `replyKey`) or `AccountChangeFailed`, in which case the profile is as it was and no new image remains.
@PublicInit
public struct ProfileUpdateRequested: RequestMessage, Equatable {
    public var requestId: String
    public var sealedAccessToken: String
    public var replyKey: String
    public var name: String? = nil
    public var isMapLocationEnabled: Bool? = nil
    /// The new avatar's original: inline, or staged at exactly `staging/<requestId>`.
    public var avatar: AvatarSource? = nil
}

/// The profile update is done everywhere: `sealedProfile` is the ``ProfileView`` it left, sealed to the request's reply key.
public typealias ProfileUpdated = SealedProfile

/// The fields of `users/<uid>` a profile update sets; nil: left as it is.
@PublicInit
public struct ProfileFields: Codable, Sendable, Equatable {
    public var name: String? = nil
    public var profileImage: String? = nil
    public var isMapLocationEnabled: Bool? = nil

    /// `profile` with these fields set.
    public func applied(to profile: Profile) -> Profile {
        var changed = profile
        changed.name = name ?? profile.name
        changed.profileImage = profileImage ?? profile.profileImage
        changed.isMapLocationEnabled = isMapLocationEnabled ?? profile.isMapLocationEnabled
        return changed
    }

    /// What `profile` holds in the fields these set: what sets them back.
    public func current(in profile: Profile) -> ProfileFields {
        ProfileFields(name: name.map { _ in profile.name }, profileImage: profileImage.map { _ in profile.profileImage },
                      isMapLocationEnabled: isMapLocationEnabled.map { _ in profile.isMapLocationEnabled })
    }
}

/// A step of a profile update, to the image worker: process and store a new avatar as `ProfileImages/<imageId>.jpg` (the
/// default image is never chosen here: an update without an avatar sends none).
@PublicInit
public struct StoreNewAvatar: SagaCommand, RequestMessage, Equatable {
    public var requestId: String
    public var uid: String
    public var imageId: String
    public var avatar: AvatarSource
    public var step: String
    public var revision: Int
}

/// The image worker's answer to ``StoreNewAvatar``: stored, reachable at `url`.
@PublicInit
public struct NewAvatarStored: RequestMessage, Equatable {
    public var requestId: String
    public var uid: String
    public var imageId: String
    public var url: String
}

/// The image worker's answer to ``StoreNewAvatar``: refused (as a registration's avatar would be); nothing was stored.
@PublicInit
public struct NewAvatarRejected: RequestMessage, Equatable {
    public var requestId: String
    public var uid: String
    public var imageId: String
    public var reason: ReasonCode
    public var message: String
}

/// A step of a profile update, to the image worker: delete the avatar `ProfileImages/<imageId>.jpg` (the replaced one once
/// the profile names the new one, or the new one when the update is undone), leaving its tombstone. The fields of an
/// account deletion's ``EraseAvatar``.
public typealias DiscardAvatar = EraseAvatar

/// The image worker's answer to ``DiscardAvatar``: the avatar is gone (or was never there).
public typealias AvatarDiscarded = AvatarErased

/// The fields of `users/<uid>` in a profile update: `UpdateProfile` asks the profile worker to set them (forward, or back
/// when the update is undone); `ProfileFieldsUpdated` says they are set, echoing the command.
@PublicInit
public struct ProfileFieldsUpdate: SagaCommand, RequestMessage, Equatable {
    public var requestId: String
    public var uid: String
    public var fields: ProfileFields
    public var step: String
    public var revision: Int
}

/// The profile worker did not set the fields (no profile, a field it refuses, the store refused for good); the profile
/// is unchanged. The fields of an email change's ``ProfileEmailRejected``.
public typealias ProfileUpdateRejected = ProfileEmailRejected

/// A heartbeat of a worker retrying a failing store for the profile update `requestId` at its `step`: `NewAvatarWaiting`
/// (the image worker, storing the new avatar) or `ProfileUpdateWaiting` (the profile worker, setting the fields). It keeps
/// every update at that step from its deadline while the store is down.
@PublicInit
public struct ProfileUpdateWaiting: RequestMessage, Equatable {
    public var requestId: String
    public var uid: String
    public var step: String
}
