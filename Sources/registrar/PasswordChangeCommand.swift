import Domain
import Support

/// `registrar password change`: changes a password, re-authenticating with the old one.
enum PasswordChangeCommand {
    static let spec = CommandSpec(
        name: "registrar password change", summary: "change a password, re-authenticating with the old one",
        usage: "--email E [--old-password-file F] [--new-password-file F]   (else current, then new password, on standard input or prompted)",
        options: FlowClient.options([.value("email", "Email address")]
            + Secret.oldPassword.options + Secret.newPassword.options))

    static func run(_ arguments: [String]) async -> ExitCode {
        await FlowClient.run(arguments, spec: spec, secrets: { _ in [Secret.oldPassword, Secret.newPassword] }) { parsed, client in
            try await client.changeAccount(.passwordChangeRequested(client.client.passwordChange(
                email: try parsed.required("email"), password: client.secrets[0],
                newPassword: client.secrets[1], locale: client.locale, requestId: client.requestId)))
        }
    }
}
