import Backends
import Console
import Crypto
import Domain
import EventTransport
import Foundation
import RegistrarClient
import Support

/// `registrar operator find|unlock|disable|enable|reset-password|delete --email E`: the operator's actions on an account,
/// over the topics — each request signed with the operator role's event key (`events-operator.ed25519`, which
/// `registrar keys` makes), done by the account worker, announced on `account.events` with `--actor`, and answered with
/// the account as it then stands. `reset-password` then has the code dispatch worker mail the owner a `reset_password`
/// code; `delete` runs the deletion saga, and with `--wait` waits for its end.
enum OperatorCommand {
    static let actions: [(name: String, action: OperatorAction, summary: String)] = [
        ("find", .find, "Show an account: uid, state, verified, locks, sessions"),
        ("unlock", .unlock, "Clear an account's failure counts and locks"),
        ("disable", .disable, "Stop an account: no sign-in, refresh or change; its sessions end at once"),
        ("enable", .enable, "Enable a disabled account again"),
        ("reset-password", .resetPassword, "Drop an account's password, end its sessions and mail it a reset_password code"),
        ("delete", .delete, "Delete an account for good through the deletion saga (no re-authentication)"),
    ]

    static func spec(_ name: String, _ summary: String) -> CommandSpec {
        CommandSpec(name: "registrar operator \(name)", summary: summary.prefix(1).lowercased() + summary.dropFirst(),
                    usage: "--email E [--actor NAME] [--operator-key-file F] [--json]\(name == "delete" ? " [--wait]" : "")",
                    options: FlowClient.options([
                        .value("email", "The account's email address"),
                        .value("actor", "Your name as an operator, announced with the action (letters, digits, '.', '-', '_'; default: $USER)",
                               environment: "REGISTRAR_OPERATOR"),
                        .value("operator-key-file", "The operator role's event signing key (default: <keys-dir>/\(EventKeyDirectory.secretFile(of: .operator)))",
                               environment: "REGISTRAR_OPERATOR_KEY_FILE"),
                        JSONOutput.option,
                    ] + (name == "delete" ? [.flag("wait", "Wait (within --timeout) until the deletion completed")] : [])))
    }

    static func run(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.dispatch(tool: "registrar operator", summary: "an operator's account tools, over the topics", arguments,
                                       to: actions.map { name, action, summary in
            .init(name, summary, run: { await run(action, spec: spec(name, summary), $0) })
        })
    }

    private static func run(_ action: OperatorAction, spec: CommandSpec, _ arguments: [String]) async -> ExitCode {
        await FlowClient.run(arguments, spec: spec) { parsed, flow in
            let actor = parsed.value("actor") ?? ProcessInfo.processInfo.environment["USER"] ?? ""
            guard OperatorRequested.isWellFormed(actor: actor) else {
                throw UsageError.invalid("--actor must be 1–64 letters, digits, '.', '-' or '_'", spec.helpText)
            }
            let keysDirectory = parsed.value("keys-dir") ?? EmbeddedBackends(parsed.value("data-dir") ?? "data").keysDirectory
            let keyFile = parsed.value("operator-key-file") ?? EventKeyDirectory(keysDirectory).secretPath(of: .operator)
            let key = try SigningKeyPair.load(from: keyFile)
            let signer = EventSigner(role: .operator, key: key)
            let request = flow.client.operatorRequest(action, email: try parsed.required("email"), actor: actor, locale: flow.locale,
                                                      requestId: flow.requestId)
            let event = Event.operatorRequested(request)
            let waits = action == .delete && parsed.flag("wait")
            let (outcome, report, deleted) = try await flow.attempt(event) { client, left -> (Event, AccountReport?, Bool?) in
                if waits { return try await client.operateDeletion(request, signer: signer, timeout: left) }
                let (outcome, report) = try await client.operate(request, signer: signer, timeout: left)
                return (outcome, report, nil)
            }
            switch outcome {
            case .operatorAnswered:
                flow.printReport(report, deleted: deleted)
                return action == .resetPassword ? try await flow.mailResetCode(for: request, key: key) : .success
            case .operatorRefused(let refused):
                return flow.refused(refused.reason, refused.message)
            default:
                throw RegistrarClient.UnexpectedOutcome(type: outcome.type)
            }
        }
    }
}

extension FlowClient {
    /// Prints the account an operator's action left, and whether its deletion completed (`--wait`).
    func printReport(_ report: AccountReport?, deleted: Bool?) {
        guard let report else {
            // A replay of a request another process made: its report is sealed to that process's reply key.
            if json {
                JSONOutput.print(["requestId": requestId, "outcome": "answered_before"])
            } else {
                Swift.print("answered before \(requestId): nothing was done again (the report was sealed to the first request's reply key)")
            }
            return
        }
        let time = ISO8601DateFormatter()
        if json {
            var object: [String: Any] = [
                "requestId": requestId, "outcome": "answered", "action": report.action.rawValue, "uid": report.uid, "email": report.email,
                "state": report.state, "verified": report.verified, "hasPassword": report.hasPassword,
                "passwordLockedUntil": JSONOutput.time(report.passwordLockedUntil), "codeLockedUntil": JSONOutput.time(report.codeLockedUntil),
                "sessions": report.sessions.map {
                    ["id": $0.id, "createdAt": time.string(from: $0.createdAt), "lastUsedAt": time.string(from: $0.lastUsedAt),
                     "clientId": $0.clientId ?? NSNull()] as [String: Any]
                },
            ]
            if let deleted { object["deleted"] = deleted }
            JSONOutput.print(object)
            return
        }
        Swift.print("\(report.action.rawValue) \(requestId): uid \(report.uid)")
        Swift.print("email: \(report.email)")
        Swift.print("state: \(report.state)")
        Swift.print("verified: \(report.verified ? "yes" : "no")")
        Swift.print("password: \(report.hasPassword ? "set" : "none")")
        Swift.print("locked: passwords \(report.passwordLockedUntil.map { "until " + time.string(from: $0) } ?? "no"), "
                    + "codes \(report.codeLockedUntil.map { "until " + time.string(from: $0) } ?? "no")")
        Swift.print("sessions: \(report.sessions.count)")
        for session in report.sessions {
            Swift.print("  \(session.id)  signed in \(time.string(from: session.createdAt))  last used \(time.string(from: session.lastUsedAt))"
                        + "  client \(session.clientId ?? "-")")
        }
        if let deleted { Swift.print(deleted ? "deleted: the account, its profile and its avatar are gone" : "deleted: not yet (see --timeout)") }
    }

    /// Has the code dispatch worker mail the owner of a forced reset a `reset_password` code, under a request id only the
    /// operator's `key` derives from the operator's request (a replay of the command mails none again).
    func mailResetCode(for request: OperatorRequested, key: SigningKeyPair) async throws -> ExitCode {
        let code = CodeRequested(requestId: OperatorRequested.resetCodeRequestId(of: request.requestId, key: key), email: request.email,
                                 purpose: .resetPassword, locale: locale)
        switch try await send(.codeRequested(code)) {
        case .codeSent(let sent):
            if !json { Swift.print("reset code: sent (\(code.requestId)), valid for \(sent.expiresIn) s") }
            return .success
        case .codeRefused(let refused):
            return self.refused(refused.reason, "the password was dropped and the sessions ended, but no reset code was mailed: "
                                + refused.message + (refused.retryAfter.map { " (retry after \($0) s)" } ?? ""))
        case let other:
            throw RegistrarClient.UnexpectedOutcome(type: other.type)
        }
    }
}
