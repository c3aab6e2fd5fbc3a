import Backends
import Crypto
import Foundation
import Domain
import Registration
import Support
import WorkerRuntime

let spec = CommandSpec(
    name: "account-worker", summary: "create accounts and drive the registration saga",
    options: ConnectionOptions.specs + [
        .value("min-password-length", "Shortest password accepted (NIST: 8; the original apps: 6)", environment: "REGISTRAR_MIN_PASSWORD_LENGTH", default: "8"),
        .value("saga-deadline", "Seconds a registration may take before it is failed and undone", environment: "REGISTRAR_SAGA_DEADLINE", default: "120"),
    ])

await CommandLineTool.exit {
    await CommandLineTool.run(Array(CommandLine.arguments.dropFirst()), spec: spec) { parsed in
        let shutdown = ShutdownSignal()
        let connection = try ConnectionOptions(parsed)
        let backends = EmbeddedBackends(connection.dataDirectory)
        let deadline = Double(try parsed.integer("saga-deadline") ?? 120)
        let coordinator = RegistrationCoordinator(
            accounts: try backends.accounts(),
            vault: SodiumPasswordVault(keys: try SealingKeyPair.loadOrCreate(at: backends.sealingKey()), hasher: PasswordHasher()),
            rules: RegistrationRules(minimumPasswordLength: try parsed.integer("min-password-length") ?? 8))
        let worker = try Worker(name: "account-worker", configuration: connection.kafka(clientID: "account-worker"),
                                topics: [Topic.registrationRequests, Topic.registrationReplies], handler: coordinator)
        try await worker.run(until: shutdown) {
            try coordinator.expireSagas(notUpdatedSince: Date().addingTimeInterval(-deadline))
        }
        return .success
    }
}
