import Console
import Domain
import Foundation
import RegistrarClient
import Support

/// `registrar sign-out`, `registrar sessions` and `registrar token revoke`: sessions over the topics, each token read
/// from its file, standard input or a prompt (never argv).
enum SessionCommands {
    static let signOutSpec = CommandSpec(
        name: "registrar sign-out", summary: "end the access token's session, another session of its account, or every session",
        usage: "[--session ID | --everywhere] [--access-token-file F] [--json]   (else the access token on standard input or prompted)",
        options: FlowClient.options(Secret.accessToken.options + [
            .value("session", "End this session of the account (an id `registrar sessions` lists) instead of the token's own"),
            .flag("everywhere", "End every session of the account: every refresh token and every access token; a notice is mailed"),
            JSONOutput.option,
        ]))

    static let listSpec = CommandSpec(
        name: "registrar sessions", summary: "list the live sessions of the access token's account",
        usage: "[--access-token-file F] [--json]   (else the access token on standard input or prompted)",
        options: FlowClient.options(Secret.accessToken.options + [JSONOutput.option]))

    static let revokeSpec = CommandSpec(
        name: "registrar token revoke", summary: "revoke a refresh or an access token: its session ends (RFC 7009)",
        usage: "[--token-file F] [--json]   (else the token on standard input or prompted)",
        options: FlowClient.options(Secret.token.options + [JSONOutput.option]))

    static func signOut(_ arguments: [String]) async -> ExitCode {
        await FlowClient.run(arguments, spec: signOutSpec, secrets: { _ in [Secret.accessToken] }) { parsed, flow in
            let session = parsed.value("session")
            if session != nil, parsed.flag("everywhere") { throw UsageError.invalid("use --session or --everywhere, not both", signOutSpec.helpText) }
            let scope: SignOutScope = parsed.flag("everywhere") ? .everywhere : .session
            return try flow.printSignOut(try await flow.client.signOut(
                scope, token: flow.secrets[0], sessionId: session, locale: flow.locale, requestId: flow.requestId, timeout: flow.timeout))
        }
    }

    static func revoke(_ arguments: [String]) async -> ExitCode {
        await FlowClient.run(arguments, spec: revokeSpec, secrets: { _ in [Secret.token] }) { _, flow in
            try flow.printSignOut(try await flow.client.signOut(
                .revocation, token: flow.secrets[0], requestId: flow.requestId, timeout: flow.timeout))
        }
    }

    static func list(_ arguments: [String]) async -> ExitCode {
        await FlowClient.run(arguments, spec: listSpec, secrets: { _ in [Secret.accessToken] }) { _, flow in
            switch try await flow.client.sessions(accessToken: flow.secrets[0], requestId: flow.requestId, timeout: flow.timeout) {
            case (.sessionsAnswered, let list?):
                let time = ISO8601DateFormatter()
                if flow.json {
                    JSONOutput.print(["requestId": flow.requestId, "outcome": "sessions", "uid": list.uid, "sessions": list.sessions.map {
                        ["id": $0.id, "createdAt": time.string(from: $0.createdAt), "lastUsedAt": time.string(from: $0.lastUsedAt),
                         "clientId": $0.clientId ?? NSNull(), "current": $0.current] as [String: Any]
                    }])
                    return .success
                }
                print("sessions of uid \(list.uid): \(list.sessions.count)")
                for session in list.sessions {
                    print("\(session.id)  signed in \(time.string(from: session.createdAt))  last used \(time.string(from: session.lastUsedAt))"
                          + "  client \(session.clientId ?? "-")\(session.current ? "  (this one)" : "")")
                }
                return .success
            case (.tokenRefused(let refused), _):
                return flow.refused(refused.reason, refused.message)
            case (let other, _):
                throw RegistrarClient.UnexpectedOutcome(type: other.type)
            }
        }
    }
}

extension FlowClient {
    /// Prints a sign-out's outcome.
    func printSignOut(_ outcome: Event) throws -> ExitCode {
        switch outcome {
        case .signedOut:
            if json {
                JSONOutput.print(["requestId": requestId, "outcome": "signed_out"])
            } else {
                print("signed out \(requestId)")
            }
            return .success
        case .tokenRefused(let refused):
            return self.refused(refused.reason, refused.message)
        default:
            throw RegistrarClient.UnexpectedOutcome(type: outcome.type)
        }
    }
}

/// `registrar export`: everything Registrar stores about an account, for its owner (a recent sign-in's access token).
enum ExportCommand {
    static let spec = CommandSpec(
        name: "registrar export", summary: "print everything Registrar stores about the access token's account as JSON",
        usage: "[--access-token-file F]   (else the access token on standard input or prompted; its session signed in recently)",
        options: FlowClient.options(Secret.accessToken.options))

    static func run(_ arguments: [String]) async -> ExitCode {
        await FlowClient.run(arguments, spec: spec, secrets: { _ in [Secret.accessToken] }) { _, flow in
            switch try await flow.client.export(accessToken: flow.secrets[0], requestId: flow.requestId, timeout: flow.timeout) {
            case (.exportAnswered, let export?):
                print(String(decoding: export.document, as: UTF8.self))
                return .success
            case (.tokenRefused(let refused), _):
                return flow.refused(refused.reason, refused.message)
            case (let other, _):
                throw RegistrarClient.UnexpectedOutcome(type: other.type)
            }
        }
    }
}

/// `registrar delete-account`: deletes for good the account of a recent sign-in's access token (App Store Review
/// Guideline 5.1.1(v), GDPR Art. 17), re-authenticated by the account's password or a `delete_account` code mailed to
/// its address (`registrar code request --purpose delete_account`).
enum DeleteAccountCommand {
    static let spec = CommandSpec(
        name: "registrar delete-account", summary: "delete the access token's account for good: its avatar, its profile and the account",
        usage: "[--access-token-file F] [--with password|code] [--password-file F | --code-file F] [--locale L] [--json]   "
            + "(else each secret on standard input or prompted; the token's session signed in recently)",
        options: FlowClient.options(Secret.accessToken.options + [
            .value("with", "password or code (a delete_account code; default: the one whose file option is given, else password)"),
            JSONOutput.option,
        ] + Secret.password.options + Secret.code.options))

    static func run(_ arguments: [String]) async -> ExitCode {
        await FlowClient.run(arguments, spec: spec, secrets: { [Secret.accessToken, try LoginCommand.secret($0, of: spec)] }) { parsed, flow in
            let proof: DeletionProof = try LoginCommand.secret(parsed, of: spec).name == Secret.code.name
                ? .code(flow.secrets[1]) : .password(flow.secrets[1])
            switch try await flow.client.deleteAccount(accessToken: flow.secrets[0], proof: proof, locale: flow.locale,
                                                       requestId: flow.requestId, timeout: flow.timeout) {
            case .accountDeleted:
                if flow.json {
                    JSONOutput.print(["requestId": flow.requestId, "outcome": "account_deleted"])
                } else {
                    print("deleted \(flow.requestId): the account, its profile and its avatar are gone")
                }
                return .success
            case .accountChangeFailed(let failed):
                return flow.refused(failed.reason, failed.message)
            case let other:
                throw RegistrarClient.UnexpectedOutcome(type: other.type)
            }
        }
    }
}
