import Domain
import Support

/// `registrar login`: signs in with a password or a one-time code and prints the tokens.
enum LoginCommand {
    static let spec = CommandSpec(
        name: "registrar login", summary: "sign in with a password or an emailed code; prints the tokens",
        usage: "--email E [--with password|code] [--password-file F | --code-file F]   (else the secret on standard input or prompted)",
        options: FlowClient.options([
            .value("email", "Email address"),
            .value("with", "password or code (default: the one whose file option is given, else password)"),
        ] + Secret.password.options + Secret.code.options))

    static func run(_ arguments: [String]) async -> ExitCode {
        await FlowClient.run(arguments, spec: spec) { parsed, client in
            let email = try parsed.required("email")
            let files = [Secret.password, Secret.code].filter { parsed.value($0.name + "-file") != nil }.map(\.name)
            guard files.count < 2, parsed.value("with").map({ files.isEmpty || files == [$0] }) ?? true else {
                throw UsageError.invalid("sign in with one secret: --with and the file given disagree", spec.helpText)
            }
            switch parsed.value("with") ?? files.first ?? "password" {
            case "password":
                return try await client.printTokens(.password, email: email, credential: Secret.read(Secret.password, from: parsed)[0])
            case "code":
                return try await client.printTokens(.email, email: email, credential: Secret.read(Secret.code, from: parsed)[0])
            case let other:
                throw UsageError.invalid("--with expects password or code, got '\(other)'", spec.helpText)
            }
        }
    }
}
