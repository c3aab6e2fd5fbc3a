import Domain
import RegistrarClient
import Support

/// `registrar code request`: asks for a one-time code by email and waits for the answer.
enum CodeRequestCommand {
    static let spec = CommandSpec(
        name: "registrar code request", summary: "send a one-time code to an email address",
        usage: "--email E --purpose register|login|reset_password|change_email|delete_account",
        options: FlowClient.options([
            .value("email", "Email address"),
            .value("purpose", "register, login, reset_password, change_email or delete_account"),
        ]))

    static func run(_ arguments: [String]) async -> ExitCode {
        await FlowClient.run(arguments, spec: spec) { parsed, client in
            guard let purpose = try parsed.value("purpose", as: "register, login, reset_password, change_email or delete_account", CodePurpose.init) else {
                throw UsageError.invalid("missing --purpose", spec.helpText)
            }
            let request = CodeRequested(requestId: client.requestId, email: try parsed.required("email"), purpose: purpose,
                                        locale: client.locale)
            switch try await client.send(.codeRequested(request)) {
            case .codeSent(let sent):
                print("sent \(client.requestId): a \(sent.purpose.rawValue) code, valid for \(sent.expiresIn) s, if the address can receive it")
                return .success
            case .codeRefused(let refused):
                let code = client.refused(refused.reason, refused.message)
                if let wait = refused.retryAfter { print("retry_after: \(wait)") }
                return code
            case let other:
                throw RegistrarClient.UnexpectedOutcome(type: other.type)
            }
        }
    }
}
