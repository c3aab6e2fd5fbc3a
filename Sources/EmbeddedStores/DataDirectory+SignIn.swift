extension DataDirectory {
    /// The code store's database.
    public var codesDatabase: String { "\(path)/codes.sqlite" }
    /// The token store's database.
    public var tokensDatabase: String { "\(path)/tokens.sqlite" }
}
