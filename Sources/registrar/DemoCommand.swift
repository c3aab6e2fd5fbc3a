import Backends
import Crypto
import Foundation
import Imaging
import Kafka
import Domain
import Registration
import Support
import WorkerRuntime

/// `registrar demo`: the whole system on the embedded defaults — a local broker and the four
/// workers as separate processes — registering sample users and printing each saga's path.
enum DemoCommand {
    static let spec = CommandSpec(
        name: "registrar demo", summary: "run the workers on a local broker and register sample users",
        options: [.value("data-dir", "Where the demo keeps its stores, keys and logs (emptied first)", default: "data/demo")])

    static let workers = ["account-worker", "image-worker", "profile-worker", "code-dispatch-worker"]

    static func run(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: spec) { parsed in
            let directory = try prepare(parsed.value("data-dir") ?? "data/demo")
            let binaries = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path
            let logs = directory + "/logs"
            print("Registrar demo — data in \(directory), worker logs in \(logs)")

            let broker = try ChildProcess(binaries + "/registrar", ["broker", "--data-dir", directory], stderrPath: logs + "/broker.log")
            guard let bootstrap = await broker.nextLine() else { throw DemoError("the local broker did not start; see \(logs)/broker.log") }
            print("local broker at \(bootstrap)")
            let keys = try SealingKeyPair.loadOrCreate(at: EmbeddedBackends(directory).sealingKey())
            var processes = [broker]
            for name in workers {
                processes.append(try ChildProcess(binaries + "/" + name, ["--data-dir", directory], stderrPath: "\(logs)/\(name).log"))
            }
            print("started \(workers.joined(separator: ", ")) as separate processes\n")
            do {
                let findings = try await registerSamples(directory: directory, bootstrap: bootstrap, publicKey: keys.publicKey)
                for process in processes.reversed() { await process.stop() }
                return findings.isEmpty ? .success : .failure
            } catch {
                for process in processes.reversed() { await process.stop() }
                throw error
            }
        }
    }

    /// Registers the sample users one after the other, printing each outcome and path; returns the audit's findings.
    private static func registerSamples(directory: String, bootstrap: String, publicKey: SealingPublicKey) async throws -> [RegistrationAudit.Finding] {
        let backends = EmbeddedBackends(directory)
        let client = RegistrationClient(kafka: KafkaConfiguration(bootstrapServers: bootstrap, clientID: "registrar-demo"),
                                        publicKey: publicKey, objects: try backends.objects())
        let photo = AvatarProcessor().defaultAvatar().jpeg
        let samples: [(label: String, email: String, name: String, avatar: [UInt8]?)] = [
            ("with an avatar", "alice@example.com", "Alice", photo),
            ("without an avatar (default image)", "bob@example.com", "Bob", nil),
            ("with a corrupt avatar", "carol@example.com", "Carol", Array(photo.prefix(photo.count / 3))),
            ("with an email already used (other letter case)", "ALICE@example.com", "Alice Again", nil),
        ]
        for sample in samples {
            let id = UUID().uuidString.lowercased()
            print("• \(sample.name) <\(sample.email)> \(sample.label) — registration \(id)")
            let outcome = try await client.register(registrationId: id, email: sample.email, password: "demo-password-\(id.prefix(8))",
                                                    name: sample.name, avatar: sample.avatar, isMapLocationEnabled: true,
                                                    timeout: .seconds(60))
            switch outcome {
            case .completed(let completed): print("  completed: uid \(completed.uid), image \(completed.profile.profileImage)")
            case .failed(let failed): print("  failed: \(failed.reason.rawValue) — \(failed.message)")
            }
            try await SagaPath.read(id, kafka: client.kafka).lines.forEach { print($0) }
            print("")
        }
        let findings = try RegistrationAudit(accounts: try backends.accounts(), profiles: try backends.profiles(),
                                             images: try backends.objects()).run(grace: .zero)
        print("audit: \(findings.count) half-registered users or orphans\(findings.isEmpty ? "" : ": " + findings.map(\.description).joined(separator: "; "))")
        return findings
    }

    /// Empties the demo directory (only one the demo made itself) and creates it again.
    private static func prepare(_ path: String) throws -> String {
        let manager = FileManager.default
        let directory = URL(fileURLWithPath: path).standardizedFileURL.path
        let marker = directory + "/.registrar-demo"
        if manager.fileExists(atPath: directory) {
            let contents = try manager.contentsOfDirectory(atPath: directory)
            guard contents.isEmpty || manager.fileExists(atPath: marker) else {
                throw DemoError("\(directory) holds other data; give the demo an empty --data-dir")
            }
            try manager.removeItem(atPath: directory)
        }
        try manager.createDirectory(atPath: directory + "/logs", withIntermediateDirectories: true)
        _ = manager.createFile(atPath: marker, contents: nil)
        return directory
    }

    struct DemoError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
