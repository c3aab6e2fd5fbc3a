import Support

/// `registrar token refresh`: trades a refresh token for a new pair (the old one stops working).
enum TokenRefreshCommand {
    static let spec = CommandSpec(
        name: "registrar token refresh", summary: "rotate a refresh token into a new token pair",
        usage: "--refresh-token T", options: FlowClient.options([.value("refresh-token", "The current refresh token")]))

    static func run(_ arguments: [String]) async -> ExitCode {
        await FlowClient.run(arguments, spec: spec) { parsed, client in
            try await client.printTokens(.refreshToken, email: nil, credential: try parsed.required("refresh-token"))
        }
    }
}
