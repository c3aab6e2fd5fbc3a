/// Where a client stages a large avatar in the ``ObjectStore`` before the request that names it: the only keys the image
/// worker reads a staged avatar from (and deletes it at once used), so that a request cannot name any other object.
public enum StagedUploads {
    /// The key of a registration's staged avatar.
    public static func key(registrationId: String) -> String { "staging/" + registrationId }

    /// The key of a profile update's staged avatar: apart from the registrations' (whose ids may be any an update's are),
    /// so that an update never reads a registration's upload.
    public static func key(profileUpdateId: String) -> String { "staging-updates/" + profileUpdateId }
}
