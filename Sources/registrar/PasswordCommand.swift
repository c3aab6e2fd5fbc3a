import Domain
import Support

/// `registrar password change` and `registrar password reset`: a new password for `--email`, proven by a first secret
/// (the current password, or a `reset_password` code); each secret from its file, standard input or a prompt.
struct PasswordCommand: Sendable {
    /// Changes a password, re-authenticating with the old one.
    static let change = PasswordCommand("change", "change a password, re-authenticating with the old one",
                                        proof: Secret.oldPassword, asked: "current") { flow, email, proof, newPassword in
        .passwordChangeRequested(flow.client.passwordChange(email: email, password: proof, newPassword: newPassword,
                                                            locale: flow.locale, requestId: flow.requestId))
    }

    /// Sets a new password with a `reset_password` code.
    static let reset = PasswordCommand("reset", "set a new password with a reset_password code",
                                       proof: Secret.code, asked: "code") { flow, email, proof, newPassword in
        .passwordResetRequested(flow.client.passwordReset(email: email, code: proof, newPassword: newPassword,
                                                          locale: flow.locale, requestId: flow.requestId))
    }

    let spec: CommandSpec
    /// The secret proving the change, read before the new password.
    let proof: SecretOption
    /// The request for an email address, its proof and the new password.
    let request: @Sendable (_ flow: FlowClient, _ email: String, _ proof: String, _ newPassword: String) -> Event

    /// `registrar password <verb>`; `asked` names the proof in the usage line.
    private init(_ verb: String, _ summary: String, proof: SecretOption, asked: String,
                 request: @escaping @Sendable (FlowClient, String, String, String) -> Event) {
        spec = CommandSpec(
            name: "registrar password \(verb)", summary: summary,
            usage: "--email E [--\(proof.name)-file F] [--new-password-file F]   (else \(asked), then new password, on standard input or prompted)",
            options: FlowClient.options([.value("email", "Email address")] + proof.options + Secret.newPassword.options))
        self.proof = proof
        self.request = request
    }

    func run(_ arguments: [String]) async -> ExitCode {
        await FlowClient.run(arguments, spec: spec, secrets: { _ in [proof, Secret.newPassword] }) { parsed, flow in
            try await flow.changeAccount(request(flow, try parsed.required("email"), flow.secrets[0], flow.secrets[1]))
        }
    }
}
