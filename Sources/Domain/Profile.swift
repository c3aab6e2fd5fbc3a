/// The user profile as the messenger app stores it under `users/<uid>`.
@PublicInit
public struct Profile: Codable, Sendable, Equatable {
    public var name: String
    public var email: String
    public var profileImage: String
    public var isMapLocationEnabled: Bool

    /// Whether sign-in may count: name, email and profile image are all present.
    public var isComplete: Bool { !name.isEmpty && !email.isEmpty && !profileImage.isEmpty }
}
