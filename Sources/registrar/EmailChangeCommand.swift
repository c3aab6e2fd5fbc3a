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
        await FlowClient.run(arguments, spec: spec) { parsed, client in
            let (email, newEmail) = (try parsed.required("email"), try parsed.required("new-email"))
            let secrets = try Secret.read(Secret.password, Secret.code, from: parsed)
            return try await client.changeAccount(.emailChangeRequested(EmailChangeRequested(
                requestId: client.requestId, email: email, sealedPassword: client.seal(secrets[0]), newEmail: newEmail,
                sealedCode: client.seal(secrets[1]))))
        }
    }
}
