import Domain
@testable import TestSupport

/// One event of every type, with the variants of optional and alternative fields, each valid by the
/// published schema: what the contract tests encode and validate.
enum EventSamples {
    static let uid = "0f8fad5b-d9cb-469f-a165-70867728950e"
    static let imageId = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
    static let profile = Profile(name: "Ada", email: "ada@example.com",
                                 profileImage: "file:///data/objects/ProfileImages/\(imageId).jpg", isMapLocationEnabled: true)
    static let staged = AvatarSource.staged(key: "staging/r-1", sha256: String(repeating: "ab", count: 32), size: 300_000)

    static let all: [Event] = [
        .registrationRequested(RegistrationRequested(registrationId: "r-1", email: "ada@example.com", name: "Ada",
                                                     sealedPassword: "c2VhbGVk", sealedCode: nil, replyKey: "a2V5", avatar: .inline("AAEC"), isMapLocationEnabled: true)),
        .registrationRequested(RegistrationRequested(registrationId: "r-2", email: "bob@example.com", name: "Bob",
                                                     sealedPassword: "c2VhbGVk", sealedCode: nil, replyKey: "a2V5", avatar: staged, isMapLocationEnabled: false)),
        .registrationRequested(RegistrationRequested(registrationId: "r-3", email: "cy@example.com", name: "Cy",
                                                     sealedPassword: "c2VhbGVk", sealedCode: nil, replyKey: "a2V5", avatar: nil, isMapLocationEnabled: false)),
        .storeAvatar(StoreAvatar(registrationId: "r-1", imageId: imageId, avatar: staged, step: "awaiting_avatar", revision: 1)),
        .storeAvatar(StoreAvatar(registrationId: "r-1", imageId: imageId, avatar: nil, step: "awaiting_avatar", revision: 1)),
        .deleteAvatar(DeleteAvatar(registrationId: "r-1", imageId: imageId, step: "compensating", revision: 3)),
        .avatarStored(AvatarStored(registrationId: "r-1", imageId: imageId, url: profile.profileImage)),
        .avatarRejected(AvatarRejected(registrationId: "r-1", imageId: imageId, reason: .imageTooManyPixels, message: "too big")),
        .avatarDeleted(AvatarDeleted(registrationId: "r-1", imageId: imageId)),
        .avatarWaiting(AvatarWaiting(registrationId: "r-1", imageId: imageId)),
        .writeProfile(WriteProfile(registrationId: "r-1", uid: uid, profile: profile, step: "awaiting_profile", revision: 2)),
        .deleteProfile(DeleteProfile(registrationId: "r-1", uid: uid, step: "compensating", revision: 3)),
        .profileWritten(ProfileWritten(registrationId: "r-1", uid: uid)),
        .profileRejected(ProfileRejected(registrationId: "r-1", uid: uid, reason: .profileStoreRejected, message: "refused")),
        .profileDeleted(ProfileDeleted(registrationId: "r-1", uid: uid)),
        .profileWaiting(ProfileWaiting(registrationId: "r-1", uid: uid)),
        .registrationCompleted(RegistrationCompleted(registrationId: "r-1", sealedResult: "c2VhbGVk")),
        .registrationFailed(RegistrationFailed(registrationId: "r-1", reason: .emailTaken, message: "taken")),
        // An invalid id is echoed as the request carried it.
        .registrationFailed(RegistrationFailed(registrationId: "../not an id", reason: .registrationIdInvalid, message: "bad id")),
        .codeRequested(CodeRequested(requestId: "q-1", email: "ada@example.com", purpose: .changeEmail, locale: "zh-CN, en")),
        .codeSent(CodeSent(requestId: "q-1", purpose: .login, expiresIn: 600)),
        .codeRefused(CodeRefused(requestId: "q-1", reason: .codeRateLimited, message: "wait", retryAfter: 42)),
        .codeRefused(CodeRefused(requestId: "", reason: .requestIdInvalid, message: "bad id")),
        .tokenRequested(TokenRequested(requestId: "q-1", grantType: .password, email: "ada@example.com",
                                       sealedCredential: "c2Vh", replyKey: "a2V5")),
        .tokenRequested(TokenRequested(requestId: "q-1", grantType: .refreshToken, email: nil, sealedCredential: "c2Vh", replyKey: "a2V5",
                                       clientId: "erban-client")),
        .tokenIssued(TokenIssued(requestId: "q-1", sealedTokens: "dG9r", expiresIn: 900, accountCreated: false)),
        .tokenRefused(RequestRefusal(requestId: "q-1", reason: .invalidCredentials, message: "no")),
        .profileRequested(BearerRequest(requestId: "q-1", sealedAccessToken: "c2Vh", replyKey: "a2V5")),
        .profileAnswered(ProfileAnswered(requestId: "q-1", sealedProfile: "cHJv")),
        .signOutRequested(SignOutRequested(requestId: "q-1", scope: .revocation, sealedToken: "c2Vh", replyKey: "a2V5")),
        .signOutRequested(SignOutRequested(requestId: "q-1", scope: .session, sealedToken: "c2Vh", sessionId: "s-1", replyKey: "a2V5")),
        .signOutRequested(SignOutRequested(requestId: "q-1", scope: .everywhere, sealedToken: "c2Vh", replyKey: "a2V5", locale: "zh-CN")),
        .signedOut(SignedOut(requestId: "q-1")),
        .sessionsRequested(BearerRequest(requestId: "q-1", sealedAccessToken: "c2Vh", replyKey: "a2V5")),
        .sessionsAnswered(SessionsAnswered(requestId: "q-1", sealedSessions: "c2Vz")),
        .exportRequested(BearerRequest(requestId: "q-1", sealedAccessToken: "c2Vh", replyKey: "a2V5")),
        .exportAnswered(ExportAnswered(requestId: "q-1", sealedExport: "ZXhw")),
        .operatorRequested(OperatorRequested(requestId: "q-1", action: .disable, email: "ada@example.com", actor: "ops.ada", replyKey: "a2V5",
                                             locale: "zh-CN", issuedAt: 1_700_000_000)),
        .operatorAnswered(OperatorAnswered(requestId: "q-1", action: .disable, sealedReport: "cmVw")),
        .operatorRefused(RequestRefusal(requestId: "q-1", reason: .accountUnknown, message: "No account has this email address.")),
        .accountDeletionRequested(AccountDeletionRequested(requestId: "q-1", sealedAccessToken: "c2Vh", replyKey: "a2V5", locale: "en")),
        .eraseAvatar(EraseAvatar(requestId: "q-1", uid: uid, imageId: imageId, step: "erasing_avatar", revision: 4)),
        .avatarErased(AvatarErased(requestId: "q-1", uid: uid, imageId: imageId)),
        .eraseProfile(EraseProfile(requestId: "q-1", uid: uid, step: "erasing_profile", revision: 5)),
        .profileErased(ProfileErased(requestId: "q-1", uid: uid)),
        .accountDeleted(AccountDeleted(requestId: "q-1")),
        .profileUpdateRequested(ProfileUpdateRequested(requestId: "q-1", sealedAccessToken: "c2Vh", replyKey: "a2V5", name: "Ada L",
                                                       isMapLocationEnabled: false, avatar: .inline("AAEC"))),
        .profileUpdateRequested(ProfileUpdateRequested(requestId: "q-1", sealedAccessToken: "c2Vh", replyKey: "a2V5",
                                                       avatar: .staged(key: "staging-updates/q-1", sha256: String(repeating: "ab", count: 32), size: 300_000))),
        .profileUpdated(ProfileUpdated(requestId: "q-1", sealedProfile: "cHJv")),
        .storeNewAvatar(StoreNewAvatar(requestId: "q-1", uid: uid, imageId: imageId, avatar: .inline("AAEC"), step: "storing_avatar", revision: 6)),
        .newAvatarStored(NewAvatarStored(requestId: "q-1", uid: uid, imageId: imageId, url: profile.profileImage)),
        .newAvatarRejected(NewAvatarRejected(requestId: "q-1", uid: uid, imageId: imageId, reason: .imageCorrupt, message: "corrupt")),
        .newAvatarWaiting(ProfileUpdateWaiting(requestId: "q-1", uid: uid, step: "storing_avatar")),
        .discardAvatar(DiscardAvatar(requestId: "q-1", uid: uid, imageId: imageId, step: "discarding_old_avatar", revision: 8)),
        .avatarDiscarded(AvatarDiscarded(requestId: "q-1", uid: uid, imageId: imageId)),
        .updateProfile(ProfileFieldsUpdate(requestId: "q-1", uid: uid, fields: ProfileFields(name: "Ada L", profileImage: profile.profileImage,
                                                                                              isMapLocationEnabled: true), step: "updating_profile", revision: 7)),
        .updateProfile(ProfileFieldsUpdate(requestId: "q-1", uid: uid, fields: ProfileFields(isMapLocationEnabled: false), step: "restoring_profile",
                                           revision: 9)),
        .profileUpdateApplied(ProfileFieldsUpdate(requestId: "q-1", uid: uid, fields: ProfileFields(name: "Ada L"), step: "updating_profile", revision: 7)),
        .profileUpdateRejected(ProfileUpdateRejected(requestId: "q-1", uid: uid, reason: .nameEmpty, message: "empty")),
        .profileUpdateWaiting(ProfileUpdateWaiting(requestId: "q-1", uid: uid, step: "updating_profile")),
        .passwordChangeRequested(PasswordChangeRequested(requestId: "q-1", email: "ada@example.com", sealedPassword: "cA==",
                                                         sealedNewPassword: "bg==", replyKey: "a2V5")),
        .passwordResetRequested(PasswordResetRequested(requestId: "q-1", email: "ada@example.com", sealedCode: "Yw==",
                                                       sealedNewPassword: "bg==", replyKey: "a2V5")),
        .emailChangeRequested(EmailChangeRequested(requestId: "q-1", email: "ada@example.com", sealedPassword: "cA==",
                                                   newEmail: "ada@new.example", sealedCode: "Yw==", replyKey: "a2V5")),
        .updateProfileEmail(ProfileEmail(requestId: "q-1", uid: uid, email: "ada@new.example", step: "awaiting_profile", revision: 4)),
        .profileEmailUpdated(ProfileEmail(requestId: "q-1", uid: uid, email: "ada@new.example", step: "awaiting_profile", revision: 4)),
        .profileEmailRejected(ProfileEmailRejected(requestId: "q-1", uid: uid, reason: .profileInvalid, message: "no")),
        .profileEmailWaiting(ProfileEmailWaiting(requestId: "q-1", uid: uid)),
        .accountChangeCompleted(AccountChangeCompleted(requestId: "q-1", change: .resetPassword)),
        .accountChangeFailed(RequestRefusal(requestId: "q-1", reason: .emailUnchanged, message: "same")),
    ]

    /// `body` once for each of its objects, with a field `unexpected` added to that object: the
    /// field's dotted path and the body. (Sample strings hold no braces, so a scan finds the objects.)
    static func withUnknownField(_ body: [UInt8]) -> [(path: String, body: [UInt8])] {
        var variants: [(path: String, body: [UInt8])] = []
        var objects: [String] = []
        var key = "", string: [UInt8] = [], inString = false, escaped = false
        for (index, byte) in body.enumerated() {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true }
                else if byte == UInt8(ascii: "\"") { inString = false } else { string.append(byte) }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true; string = []
            case UInt8(ascii: ":"): key = String(decoding: string, as: UTF8.self)
            case UInt8(ascii: "{"):
                objects.append(objects.isEmpty ? "" : key)
                let path = (objects.dropFirst() + ["unexpected"]).joined(separator: ".")
                variants.append((path, Array(body[...index]) + Array(#""unexpected":1,"#.utf8) + Array(body[(index + 1)...])))
            case UInt8(ascii: "}"): objects.removeLast()
            default: break
            }
        }
        return variants
    }
}
