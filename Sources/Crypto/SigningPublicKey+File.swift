extension SigningPublicKey {
    /// Writes the key to `path` as a `.pub` file (one line of standard base64, mode 0644), replacing any other key there.
    public func save(to path: String) throws {
        try KeyFile.writePublic(bytes, to: path)
    }
}
