import Domain
import Support

/// `registrar password reset`: sets a new password with a `reset_password` code.
enum PasswordResetCommand {
    static let spec = CommandSpec(
        name: "registrar password reset", summary: "set a new password with a reset_password code",
        usage: "--email E [--code-file F] [--new-password-file F]   (else code, then new password, on standard input or prompted)",
        options: FlowClient.options([.value("email", "Email address")]
            + Secret.code.options + Secret.newPassword.options))

    static func run(_ arguments: [String]) async -> ExitCode {
        await FlowClient.run(arguments, spec: spec, secrets: { _ in [Secret.code, Secret.newPassword] }) { parsed, client in
            try await client.changeAccount(.passwordResetRequested(client.client.passwordReset(
                email: try parsed.required("email"), code: client.secrets[0],
                newPassword: client.secrets[1], locale: client.locale, requestId: client.requestId)))
        }
    }
}
