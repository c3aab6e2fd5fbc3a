import Support

/// The secrets the commands take, each from its `--<name>-file`, standard input or a prompt; never from argv.
enum Secret {
    static let password = SecretOption("password", "password")
    static let code = SecretOption("code", "one-time code")
    static let oldPassword = SecretOption("old-password", "current password")
    static let newPassword = SecretOption("new-password", "new password")
    static let refreshToken = SecretOption("refresh-token", "refresh token")
    static let accessToken = SecretOption("access-token", "access token")
    static let token = SecretOption("token", "refresh or access token")

    /// The values of `secrets`, in order.
    static func read(_ secrets: SecretOption..., from parsed: ParsedArguments) throws(UsageError) -> [String] {
        try SecretInput.standard.read(secrets, from: parsed)
    }
}
