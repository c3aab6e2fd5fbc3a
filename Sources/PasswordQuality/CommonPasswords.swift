import Domain

/// The password check of every new password (registration, change, reset): zxcvbn's guess estimate
/// (``GuessEstimate``), then libpwquality's dictionary check (``DictionaryBlocklist``); common when either says so.
/// The estimate runs first: it takes no lock, and refuses most common passwords without the dictionary's turn.
public struct CommonPasswords: PasswordBlocklist {
    public var estimate: GuessEstimate
    public var dictionary: DictionaryBlocklist

    public init(estimate: GuessEstimate = GuessEstimate(), dictionary: DictionaryBlocklist) {
        self.estimate = estimate
        self.dictionary = dictionary
    }

    /// Both checks with their defaults; fails when the dictionary does not work.
    public init() throws(BlocklistError) {
        self.init(dictionary: try DictionaryBlocklist())
    }

    public func isCommon(_ password: String) -> Bool {
        isCommon(password, related: [])
    }

    public func isCommon(_ password: String, related: [String]) -> Bool {
        estimate.isCommon(password, related: related) || dictionary.isCommon(password)
    }
}
