import Domain
import Support

/// `registrar password reset`: sets a new password with a `reset_password` code.
enum PasswordResetCommand {
    static let spec = CommandSpec(
        name: "registrar password reset", summary: "set a new password with a reset_password code",
        usage: "--email E --code C --new-password N",
        options: FlowClient.options([
            .value("email", "Email address"), .value("code", "One-time code from the reset email"), .value("new-password", "New password"),
        ]))

    static func run(_ arguments: [String]) async -> ExitCode {
        await FlowClient.run(arguments, spec: spec) { parsed, client in
            try await client.changeAccount(.passwordResetRequested(client.client.passwordReset(
                email: try parsed.required("email"), code: try parsed.required("code"),
                newPassword: try parsed.required("new-password"), requestId: client.requestId)))
        }
    }
}
