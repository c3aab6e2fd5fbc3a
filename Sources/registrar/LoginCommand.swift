import Domain
import Support

/// `registrar login`: signs in with a password or a one-time code and prints the tokens.
enum LoginCommand {
    static let spec = CommandSpec(
        name: "registrar login", summary: "sign in with a password or an emailed code; prints the tokens",
        usage: "--email E (--password P | --code C)",
        options: FlowClient.options([
            .value("email", "Email address"),
            .value("password", "Password (sealed before it leaves this process)", environment: "REGISTRAR_PASSWORD"),
            .value("code", "One-time code from a login or register email"),
        ]))

    static func run(_ arguments: [String]) async -> ExitCode {
        await FlowClient.run(arguments, spec: spec) { parsed, client in
            switch (parsed.value("password"), parsed.value("code")) {
            case (let password?, nil):
                try await client.printTokens(.password, email: try parsed.required("email"), credential: password)
            case (nil, let code?):
                try await client.printTokens(.email, email: try parsed.required("email"), credential: code)
            default:
                throw UsageError.invalid("give exactly one of --password and --code", spec.helpText)
            }
        }
    }
}
