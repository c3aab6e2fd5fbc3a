import Domain
import Support

/// `registrar email change`: moves an account to a new email, proven by a `change_email` code sent there.
enum EmailChangeCommand {
    static let spec = CommandSpec(
        name: "registrar email change", summary: "move an account to a new email, proven by a change_email code sent there",
        usage: "--email E --password P --new-email N --code C",
        options: FlowClient.options([
            .value("email", "Current email address"), .value("password", "Password"), .value("new-email", "New email address"),
            .value("code", "One-time code sent to the new address"),
        ]))

    static func run(_ arguments: [String]) async -> ExitCode {
        await FlowClient.run(arguments, spec: spec) { parsed, client in
            try await client.changeAccount(.emailChangeRequested(client.client.emailChange(
                email: try parsed.required("email"), password: try parsed.required("password"),
                newEmail: try parsed.required("new-email"), code: try parsed.required("code"), requestId: client.requestId)))
        }
    }
}
