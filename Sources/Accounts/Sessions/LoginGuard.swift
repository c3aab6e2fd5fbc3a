import Domain

/// The messenger app's rule: only an active account with a complete profile (name, email, image) signs in
/// or reads its profile.
public struct LoginGuard: Sendable {
    public var accounts: any AccountStore
    public var profiles: any ProfileStore

    public init(accounts: any AccountStore, profiles: any ProfileStore) {
        self.accounts = accounts
        self.profiles = profiles
    }

    /// The refusal of an account the guard does not let in.
    public static let refusal = Failure(.profileIncomplete,
                                        "The account's profile needs a name, an email and a profile image before signing in.")

    /// The refusal of a disabled account, to whoever proved one of its credentials.
    public static let disabled = Failure(.accountDisabled,
                                         "An operator disabled this account: it cannot sign in or change anything until it is enabled again.")

    /// The account of `uid` and its profile if the guard lets it in; else nil.
    public func admitted(uid: String) throws -> (account: Account, profile: Profile)? {
        guard let account = try accounts.account(uid: uid), account.status == .active, let profile = try profiles.profile(uid: uid),
              profile.isComplete else { return nil }
        return (account, profile)
    }
}
