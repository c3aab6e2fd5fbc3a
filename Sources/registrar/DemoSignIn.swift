import Foundation
import Kafka
import Domain
import Registration
import WorkerRuntime

/// The demo's sign-in part: a code sign-in that registers its account, a resend refused by the
/// cooldown, a password sign-in, and a refresh token rotated and then reused (which revokes its family).
enum DemoSignIn {
    static func run(_ installation: LocalInstallation) async throws {
        let kafka = KafkaConfiguration(bootstrapServers: installation.bootstrap, clientID: "registrar-demo")
        func client() -> FlowClient {
            FlowClient(kafka: kafka, publicKey: installation.publicKey, requestId: UUID().uuidString.lowercased(), timeout: .seconds(60))
        }
        print("\n• Dora signs in with a code sent to dora@example.com, which has no account yet")
        let codeRequest = client()
        _ = try await codeRequest.send(.codeRequested(CodeRequested(requestId: codeRequest.requestId, email: "dora@example.com",
                                                                    purpose: .register)), awaiting: Topic.codeOutcomes)
        let code = try codeFromOutbox(installation.directory, requestId: codeRequest.requestId)
        print("  code emailed: outbox/code.\(codeRequest.requestId)@registrar.local.eml")
        show("code sign-in", try await client().requestTokens(.email, email: "dora@example.com", credential: code).0)
        let again = client()
        show("another code at once", try await again.send(.codeRequested(CodeRequested(requestId: again.requestId, email: "dora@example.com",
                                                                                       purpose: .register)), awaiting: Topic.codeOutcomes))

        print("\n• Erin registers with a password, signs in, refreshes, and an old refresh token comes back")
        let registration = RegistrationClient(kafka: kafka, publicKey: installation.publicKey, objects: try installation.stores.objectStore())
        _ = try await registration.register(registrationId: UUID().uuidString.lowercased(), email: "erin@example.com",
                                            password: "erin's demo password", name: "Erin", avatar: nil, isMapLocationEnabled: false,
                                            timeout: .seconds(60))
        let (signedIn, first) = try await client().requestTokens(.password, email: "erin@example.com", credential: "erin's demo password")
        show("password sign-in", signedIn)
        guard let first else { return }
        let (refreshed, second) = try await client().requestTokens(.refreshToken, email: nil, credential: first.refreshToken)
        show("refresh", refreshed)
        show("the first refresh token again", try await client().requestTokens(.refreshToken, email: nil, credential: first.refreshToken).0)
        if let second {
            show("the rotated token, family revoked", try await client().requestTokens(.refreshToken, email: nil, credential: second.refreshToken).0)
        }
        print("")
    }

    private static func show(_ step: String, _ outcome: Event) {
        let summary = switch outcome {
        case .tokenIssued(let issued): "tokens for uid \(issued.uid)\(issued.accountCreated ? ", account created" : "") (sealed to the requester)"
        case .tokenRefused(let refused): "refused: \(refused.reason.rawValue)"
        case .codeSent(let sent): "code sent, valid \(sent.expiresIn) s"
        case .codeRefused(let refused): "refused: \(refused.reason.rawValue), retry after \(refused.retryAfter ?? 0) s"
        default: outcome.type
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
