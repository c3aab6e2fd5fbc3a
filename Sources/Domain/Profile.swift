/// The user profile as the messenger app stores it under `users/<uid>`.
public struct Profile: Codable, Sendable, Equatable {
    public var name: String
    public var email: String
    public var profileImage: String
    public var isMapLocationEnabled: Bool

    public init(name: String, email: String, profileImage: String, isMapLocationEnabled: Bool) {
        self.name = name
        self.email = email
        self.profileImage = profileImage
        self.isMapLocationEnabled = isMapLocationEnabled
    }

    /// Whether sign-in may count: name, email and profile image are all present.
    public var isComplete: Bool { !name.isEmpty && !email.isEmpty && !profileImage.isEmpty }
}
