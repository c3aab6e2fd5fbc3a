import Domain

/// The profile store as a profile worker's steps write to it: never a profile the login guard refuses (a name the rules
/// refuse, a missing field), and a permanent store failure refuses the profile instead of being retried.
public struct ProfileWriter: Sendable {
    public var profiles: any ProfileStore
    public var rules: RegistrationRules

    public init(profiles: any ProfileStore, rules: RegistrationRules = .init()) {
        self.profiles = profiles
        self.rules = rules
    }

    /// The first rule `profile` breaks: its name, its email address when `checkingEmail`, then that its name, email and
    /// profile image are all present.
    public func refusal(of profile: Profile, checkingEmail: Bool = false) -> Failure? {
        if let failure = rules.validate(name: profile.name) ?? (checkingEmail ? rules.validate(email: profile.email) : nil) {
            return failure
        }
        return profile.isComplete ? nil : Failure(.profileInvalid, "The profile needs a name, an email and a profile image.")
    }

    /// The store's ``ProfileStore/apply(revision:uid:_:)``, its permanent failure given as the profile's refusal; a
    /// transient one is thrown.
    public func apply<T: Sendable>(revision: Int, uid: String,
                                   _ change: (inout Profile?) -> T) throws(StoreError) -> Result<T?, Failure> {
        do {
            return .success(try profiles.apply(revision: revision, uid: uid, change))
        } catch {
            guard error.kind == .permanent else { throw error }
            return .failure(Failure(.profileStoreRejected, "The profile store refused the profile: \(error.message)"))
        }
    }
}
