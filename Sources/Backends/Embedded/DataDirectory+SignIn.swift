extension DataDirectory {
    /// Where the code store was kept before it moved into the account database, which imports it once.
    public var legacyCodesDatabase: String { "\(path)/codes.sqlite" }
    /// Where the token store was kept before it moved into the account database, which imports it once.
    public var legacyTokensDatabase: String { "\(path)/tokens.sqlite" }
}
