import Console
import Domain
import Support

/// `registrar login`: signs in with a password or a one-time code and prints the tokens. The password of an account whose
/// mailbox was never proven (made before registrations needed a code) is answered `email_unverified`: then a login code
/// is requested and read, and the sign-in repeated with both, once.
enum LoginCommand {
    static let spec = CommandSpec(
        name: "registrar login", summary: "sign in with a password or an emailed code; prints the tokens",
        usage: "--email E [--with password|code] [--password-file F | --code-file F] [--json]   (else the secret on standard input or prompted)",
        options: FlowClient.options([
            .value("email", "Email address"),
            .value("with", "password or code (default: the one whose file option is given, else password)"),
            JSONOutput.option,
        ] + Secret.password.options + Secret.code.options))

    static func run(_ arguments: [String]) async -> ExitCode {
        await FlowClient.run(arguments, spec: spec, secrets: { [try secret($0, of: spec)] }) { parsed, client in
            let email = try parsed.required("email")
            // An account whose mailbox was never proven asks once for a login code mailed there beside the password.
            return try await client.printTokens(try secret(parsed, of: spec).name == Secret.code.name ? .email : .password,
                                                email: email, credential: client.secrets[0]) {
                try await client.client.mailedCode(.login, email: email, parsed: parsed, timeout: client.timeout)
            }
        }
    }

    /// The secret to sign in (or re-authenticate) with: `--with`, else the one whose file is given, else the password.
    static func secret(_ parsed: ParsedArguments, of spec: CommandSpec) throws(UsageError) -> SecretOption {
        let secrets = [Secret.password, Secret.code]
        let files = secrets.filter { parsed.value($0.name + "-file") != nil }
        let name = parsed.value("with") ?? files.first?.name ?? Secret.password.name
        guard let chosen = secrets.first(where: { $0.name == name }) else {
            throw .invalid("--with expects password or code", spec.helpText)
        }
        guard files.allSatisfy({ $0.name == chosen.name }) else {
            throw .invalid("sign in with one secret: --with and the file given disagree", spec.helpText)
        }
        return chosen
    }
}
