import Backends
import Console
import Crypto
import Domain
import Foundation
import Imaging
import Installation
import RegistrarClient
import Registration
import S3Store
import SQLStores
import Support

/// `registrar-dev demo`: the whole system on the embedded defaults — a local broker and the four
/// workers as separate processes — registering sample users and printing each saga's path.
public enum DemoCommand {
    static let spec = CommandSpec(
        name: "registrar-dev demo", summary: "run the workers on a local broker and register sample users",
        options: [.value("data-dir", "Where the demo keeps its stores, keys and logs (emptied first)", default: "data/demo")])

    public static func run(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: spec) { parsed in
            let installation = try await LocalInstallation(at: parsed.value("data-dir") ?? "data/demo", binaries: LocalInstallation.besideThisBinary)
            print("Registrar demo — data in \(installation.directory), worker logs in \(installation.logs)")
            print("local broker at \(installation.bootstrap)")
            print("started \(LocalInstallation.workerNames.joined(separator: ", ")) as separate processes\n")
            do {
                let findings = try await RegistrarClient.with(kafka: installation.kafka(clientID: "registrar-demo"),
                                                              publicKey: installation.publicKey, verifier: try installation.outcomeVerifier(),
                                                              name: "registrar-demo") { client in
                    let findings = try await registerSamples(installation, client: client)
                    try await DemoSignIn.run(installation, client: client)
                    return findings
                }
                await installation.stop()
                return findings.isEmpty ? .success : .failure
            } catch {
                await installation.stop()
                throw error
            }
        }
    }

    /// Registers the sample users one after the other, printing each outcome and path; returns the audit's findings.
    private static func registerSamples(_ installation: LocalInstallation, client: RegistrarClient) async throws -> [RegistrationAudit.Finding] {
        let stores = installation.stores
        let objects = try stores.objectStore()
        let photo = AvatarProcessor().defaultAvatar().jpeg
        let samples: [(label: String, email: String, name: String, avatar: [UInt8]?)] = [
            ("with an avatar", "alice@example.com", "Alice", photo),
            ("without an avatar (default image)", "bob@example.com", "Bob", nil),
            ("with a corrupt avatar", "carol@example.com", "Carol", Array(photo.prefix(photo.count / 3))),
            ("with an email already used (other letter case)", "ALICE@example.com", "Alice Again", nil),
        ]
        let mail = MailedCodes(directory: installation.directory + "/outbox")
        for sample in samples {
            let id = UUID().uuidString.lowercased()
            print("• \(sample.name) <\(sample.email)> \(sample.label) — registration \(id)")
            // The register code mailed to the address proves the registrant reads it (the outbox stands for the mailbox).
            let code = try await mail.code(for: sample.email, .register, with: client)
            let outcome = try await client.register(try client.registration(
                id: id, email: sample.email, password: "demo-password-\(id.prefix(8))", code: code, name: sample.name, avatar: sample.avatar,
                isMapLocationEnabled: true, staging: objects), timeout: .seconds(60))
            switch outcome {
            case .completed(let completed): print("  completed: uid \(completed.uid), image \(completed.profile.profileImage)")
            case .failed(let failed): print("  failed: \(failed.reason.rawValue) — \(failed.message)")
            }
            try await SagaPath.read(id, kafka: client.kafka).path.lines.forEach { print($0) }
            print("")
        }
        let findings = try RegistrationAudit(accounts: try stores.accountStore(), profiles: try stores.profileStore(),
                                             images: try stores.objectStore()).run(grace: .zero)
        print("audit: \(findings.count) half-registered users or orphans\(findings.isEmpty ? "" : ": " + findings.map(\.description).joined(separator: "; "))")
        return findings
    }
}
