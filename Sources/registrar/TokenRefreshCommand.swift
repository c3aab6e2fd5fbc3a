import Console
import Support

/// `registrar token refresh`: trades a refresh token for a new pair (the old one stops working).
enum TokenRefreshCommand {
    static let spec = CommandSpec(
        name: "registrar token refresh", summary: "rotate a refresh token into a new token pair",
        usage: "[--refresh-token-file F] [--json]   (else the refresh token on standard input or prompted)",
        options: FlowClient.options(Secret.refreshToken.options + [JSONOutput.option]))

    static func run(_ arguments: [String]) async -> ExitCode {
        await FlowClient.run(arguments, spec: spec, secrets: { _ in [Secret.refreshToken] }) { _, client in
            try await client.printTokens(.refreshToken, email: nil, credential: client.secrets[0])
        }
    }
}
