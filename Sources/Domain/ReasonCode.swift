/// Stable, machine-readable reasons a flow can fail with. Part of the public contract.
public enum ReasonCode: String, Codable, Sendable, CaseIterable {
    // Validation of the request
    case nameEmpty = "name_empty"
    case nameTooLong = "name_too_long"
    case emailInvalid = "email_invalid"
    case emailTooLong = "email_too_long"
    case passwordTooShort = "password_too_short"
    case passwordTooLong = "password_too_long"
    case passwordEqualsEmail = "password_equals_email"
    case passwordTooCommon = "password_too_common"
    case passwordUnsealable = "password_unsealable"
    case registrationIdInvalid = "registration_id_invalid"
    /// A password registration without a `register` code: the code proves the registrant reads the mailbox.
    case codeRequired = "code_required"
    // Business rules
    case emailTaken = "email_taken"
    // Later steps
    case imageEmpty = "image_empty"
    case imageTooLarge = "image_too_large"
    case imageNotAnImage = "image_not_an_image"
    case imageUnsupportedFormat = "image_unsupported_format"
    case imageCorrupt = "image_corrupt"
    case imageTooManyPixels = "image_too_many_pixels"
    case imageAnimated = "image_animated"
    case imageStagingMissing = "image_staging_missing"
    case imageStoreRejected = "image_store_rejected"
    case profileInvalid = "profile_invalid"
    case profileStoreRejected = "profile_store_rejected"
    case deadlineExceeded = "deadline_exceeded"
    // Codes, sign-in and account changes
    case requestIdInvalid = "request_id_invalid"
    case codeRateLimited = "code_rate_limited"
    /// Any wrong, unknown, expired, used or locked-out credential: the requester learns nothing more.
    case invalidCredentials = "invalid_credentials"
    case credentialUnsealable = "credential_unsealable"
    case replyKeyInvalid = "reply_key_invalid"
    case profileIncomplete = "profile_incomplete"
    case emailUnchanged = "email_unchanged"
    /// The password was right, but the account's mailbox was never proven (an account made before registrations
    /// needed a code): sign in once with the password and a `login` code mailed to the address.
    case emailUnverified = "email_unverified"
    /// A request's `locale` is not a language tag or a list of them.
    case localeInvalid = "locale_invalid"
    /// A sign-out names a session the caller's account does not have (or no longer has).
    case sessionUnknown = "session_unknown"
    /// A request that needs a recent sign-in (an export) came with an access token of an older session.
    case reauthenticationRequired = "reauthentication_required"
    /// A profile update that changes nothing (no field given).
    case profileUnchanged = "profile_unchanged"
    /// Another update of the account's profile is in flight (one at a time), or a deletion waits for one to finish: retry
    /// once it is answered.
    case profileUpdateInProgress = "profile_update_in_progress"
    /// The account was disabled by an operator: it cannot sign in, refresh or change anything until it is enabled again.
    /// Said only to whoever proved a credential of the account (its password, a code mailed to it, a refresh token).
    case accountDisabled = "account_disabled"
    // The operator's requests
    /// No account has this email address.
    case accountUnknown = "account_unknown"
    /// The account is not in a state the action applies to (a registration in flight, a deletion begun).
    case accountInactive = "account_inactive"
    /// An operator request whose `actor` is not 1–64 letters, digits, '.', '-' or '_'.
    case actorInvalid = "actor_invalid"
    // Any request
    /// The request could not be processed at all (undecodable, too large, keyed other than its id, refused
    /// by a store for good) and was dead-lettered; the message says why. Publish a corrected request.
    case requestInvalid = "request_invalid"
}

/// A failed step: a reason code and a message for people.
public struct Failure: Error, Codable, Sendable, Equatable {
    public var reason: ReasonCode
    public var message: String

    public init(_ reason: ReasonCode, _ message: String) {
        self.reason = reason
        self.message = message
    }
}
