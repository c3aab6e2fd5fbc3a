import Domain
import Support

/// `registrar email change`: moves an account to a new email, proven by a `change_email` code sent there.
enum EmailChangeCommand {
    static let spec = CommandSpec(
        name: "registrar email change", summary: "move an account to a new email, proven by a change_email code sent there",
        usage: "--email E --new-email N [--password-file F] [--code-file F]   (else password, then code, on standard input or prompted)",
        options: FlowClient.options([.value("email", "Current email address"), .value("new-email", "New email address")]
            + Secret.password.options + Secret.code.options))

    static func run(_ arguments: [String]) async -> ExitCode {
        await FlowClient.run(arguments, spec: spec, secrets: { _ in [Secret.password, Secret.code] }) { parsed, client in
            try await client.changeAccount(.emailChangeRequested(client.client.emailChange(
                email: try parsed.required("email"), password: client.secrets[0],
                newEmail: try parsed.required("new-email"), code: client.secrets[1], locale: client.locale, requestId: client.requestId)))
        }
    }
}
