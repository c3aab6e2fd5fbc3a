import Backends
import Crypto
import CryptoAdapters
import Domain
import Foundation
import Registration
import SignIn
import SQLStores
import Support

/// `registrar-dev bench sign-in`: the time a password sign-in takes to be refused, for an unknown email, an
/// account with a password and an account made by code sign-in (no password), side by side. Real argon2id
/// (libsodium) and a real SQLite account store in a temporary directory; the three kinds interleave so
/// that they share the machine's load. Prints figures only.
public enum BenchCommand {
    static let spec = CommandSpec(
        name: "registrar-dev bench sign-in", summary: "time refused password sign-ins by kind of account", usage: "[--samples N]",
        options: [.value("samples", "Sign-ins per kind", default: "100")])

    public static func run(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: spec) { parsed in
            let samples = max(1, try parsed.integer("samples") ?? 100)
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("registrar-bench-\(UUID().uuidString)").path
            try PrivateFiles.prepareDirectory(directory)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let accounts = try BackendOptions.accountChangeStore(at: "sqlite://" + directory + "/accounts.sqlite")
            let vault = SodiumCredentialVault(keys: SealingKeyPair.generate())
            try activate("with-password@bench.example", hash: try vault.hash("the bench password"), in: accounts)
            try activate("code-only@bench.example", hash: "", in: accounts)
            let check = PasswordCheck(accounts: accounts, vault: vault)
            let kinds = [("unknown email", "nobody-%d@bench.example"), ("account with a password", "with-password@bench.example"),
                         ("code-only account", "code-only@bench.example")]
            var times = Array(repeating: [Double](), count: kinds.count)
            for sample in 0..<samples {
                for (index, kind) in kinds.enumerated() {
                    let email = kind.1.replacingOccurrences(of: "%d", with: String(sample))
                    let start = ContinuousClock.now
                    _ = try check.authenticate(email: email, password: "a wrong guess \(sample)", at: Date())
                    times[index].append((ContinuousClock.now - start).timeInterval * 1000)
                }
            }
            print("refused password sign-ins, \(samples) per kind, milliseconds (min / p10 / median / p90 / max):")
            let medians = times.map { percentile($0, 0.5) }
            for ((name, _), series) in zip(kinds, times) {
                let figures = [0, 0.1, 0.5, 0.9, 1].map { String(format: "%7.2f", percentile(series, $0)) }
                print("  \(name.padding(toLength: 24, withPad: " ", startingAt: 0)) \(figures.joined(separator: " "))")
            }
            let spread = (medians.max()! - medians.min()!) / medians.min()! * 100
            print(String(format: "medians within %.1f %% of each other", spread))
            return .success
        }
    }

    /// Adds an active account of `email` with the password hash `hash` (empty: no password).
    private static func activate(_ email: String, hash: String, in accounts: any AccountStore) throws {
        let now = Date()
        let saga = SagaRecord(registrationId: "bench-" + email, uid: UUID().uuidString.lowercased(), email: email, name: "Bench",
                              isMapLocationEnabled: false, imageId: "none", stage: .awaitingAvatar, startedAt: now, updatedAt: now)
        _ = try accounts.start(saga, account: Account(uid: saga.uid, email: email, passwordHash: hash, status: .pending,
                                                      registrationId: saga.registrationId, createdAt: now))
        var completed = saga
        completed.stage = .completed
        completed.version += 1
        _ = try accounts.save(completed, applying: .activate(uid: saga.uid))
    }

    /// The `fraction` percentile of `values` (nearest rank).
    private static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
    }
}
