import Domain
import Support

/// `registrar password change`: changes a password, re-authenticating with the old one.
enum PasswordChangeCommand {
    static let spec = CommandSpec(
        name: "registrar password change", summary: "change a password, re-authenticating with the old one",
        usage: "--email E --old-password P --new-password N",
        options: FlowClient.options([
            .value("email", "Email address"), .value("old-password", "Current password"), .value("new-password", "New password"),
        ]))

    static func run(_ arguments: [String]) async -> ExitCode {
        await FlowClient.run(arguments, spec: spec) { parsed, client in
            try await client.changeAccount(.passwordChangeRequested(client.client.passwordChange(
                email: try parsed.required("email"), password: try parsed.required("old-password"),
                newPassword: try parsed.required("new-password"), requestId: client.requestId)))
        }
    }
}
