import Domain
import Foundation
import Installation
import RegistrarClient
import SignIn

/// The demo's sign-in part: a code sign-in that registers its account, a resend refused by the
/// cooldown, a registration with its register code, a password sign-in, and a refresh token rotated and then reused
/// (which revokes its family).
enum DemoSignIn {
    static func run(_ installation: LocalInstallation, client: RegistrarClient) async throws {
        let timeout = Duration.seconds(60)
        func requestCode() async throws -> (id: String, outcome: Event) {
            let id = UUID().uuidString.lowercased()
            let request = CodeRequested(requestId: id, email: "dora@example.com", purpose: .register)
            return (id, try await client.send(.codeRequested(request), timeout: timeout))
        }
        func signIn(_ grant: GrantType, _ email: String?, _ credential: String) async throws -> (Event, TokenPair?) {
            try await client.requestTokens(grant, email: email, credential: credential, timeout: timeout)
        }
        print("\n• Dora signs in with a code sent to dora@example.com, which has no account yet")
        let codeRequest = try await requestCode()
        let code = try codeFromOutbox(installation.directory, requestId: codeRequest.id)
        print("  code emailed: outbox/code.\(codeRequest.id)@registrar.local.eml")
        show("another code at once (the outstanding one is mailed again, at most once a minute)", (try await requestCode().outcome, nil))
        show("code sign-in", try await signIn(.email, "dora@example.com", code))

        print("\n• Erin registers with a password and the register code mailed to her, signs in, refreshes, and an old refresh token comes back")
        let erinsCode = try await MailedCodes(directory: installation.directory + "/outbox").code(for: "erin@example.com", .register, with: client)
        _ = try await client.register(try client.registration(email: "erin@example.com", password: "erin's demo password", code: erinsCode,
                                                              name: "Erin"),
                                      timeout: timeout)
        let (signedIn, first) = try await signIn(.password, "erin@example.com", "erin's demo password")
        show("password sign-in", (signedIn, first))
        guard let first else { return }
        let (refreshed, second) = try await signIn(.refreshToken, nil, first.refreshToken)
        show("refresh", (refreshed, second))
        show("the first refresh token again", try await signIn(.refreshToken, nil, first.refreshToken))
        if let second {
            show("the rotated token, family revoked", try await signIn(.refreshToken, nil, second.refreshToken))
        }
        print("")
    }

    /// Prints an outcome, with what the requester opened of it.
    private static func show(_ step: String, _ answer: (outcome: Event, tokens: TokenPair?)) {
        let summary = switch answer.outcome {
        case .tokenIssued(let issued):
            "tokens for uid \(answer.tokens?.uid ?? "?")\(issued.accountCreated ? ", account created" : "") (sealed to the requester)"
        case .tokenRefused(let refused): "refused: \(refused.reason.rawValue)"
        case .codeSent(let sent): "code sent, valid \(sent.expiresIn) s"
        case .codeRefused(let refused): "refused: \(refused.reason.rawValue), retry after \(refused.retryAfter ?? 0) s"
        default: answer.outcome.type
        }
        print("  \(step): \(summary)")
    }

    private static func codeFromOutbox(_ directory: String, requestId: String) throws -> String {
        let path = "\(directory)/outbox/code.\(requestId)@registrar.local.eml"
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        guard let range = text.range(of: #"is: [0-9]{6}"#, options: .regularExpression) else {
            throw InstallationError("no code in \(path)")
        }
        return String(text[range].suffix(6))
    }
}
