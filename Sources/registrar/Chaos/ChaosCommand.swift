import Backends
import Crypto
import Domain
import Foundation
import Imaging
import Installation
import Kafka
import RegistrarClient
import Registration
import Support
import WorkerRuntime

/// `registrar chaos`: registrations under faults, then checks that nothing was lost or half-done.
enum ChaosCommand {
    static let spec = CommandSpec(
        name: "registrar chaos", summary: "register users while injecting faults, then check every promise",
        options: [
            .value("registrations", "How many registrations", default: "200"),
            .value("rate", "Requests published per second", default: "40"),
            .value("fault-interval", "Mean seconds between faults", default: "2"),
            .value("brokers", "Brokers in the local cluster", default: "3"),
            .value("settle", "Seconds to wait for every outcome once the faults stop", default: "300"),
            .value("seed", "Random seed, to repeat a run"),
            .value("data-dir", "Where the run keeps its stores and logs (emptied first)", default: "data/chaos"),
            .value("fault", "NAME=COMMAND: a shell command that makes a store fail and heal, injected like the others "
                   + "(e.g. 'database restarted=pg_ctlcluster 15 main restart')", repeatable: true),
            .value("sent-mail", "The directory where the mail server keeps each message it accepted (needed with --mail)"),
        ] + BackendOptions.specs)

    static func run(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: spec) { parsed in
            let count = try parsed.integer("registrations") ?? 200
            let rate = max(1, try parsed.integer("rate") ?? 40)
            let brokers = Int32(max(1, try parsed.integer("brokers") ?? 3))
            let seed = UInt64(try parsed.integer("seed") ?? Int.random(in: 1...999_999))
            var generator = SeededGenerator(seed: seed)
            let logger = Logger(component: "chaos")
            let stores = BackendOptions(parsed, dataDirectory: "")
            if stores.mail != nil && parsed.value("sent-mail") == nil {
                throw UsageError.invalid("--sent-mail DIR is needed with --mail: the run counts the emails the server accepted", spec.helpText)
            }
            let commands = try FaultInjector.commands(parsed.values("fault"), help: spec.helpText)
            let installation = try await LocalInstallation(
                at: parsed.value("data-dir") ?? "data/chaos", binaries: LocalInstallation.besideThisBinary, stores: stores,
                brokerArguments: ["--brokers", String(brokers)], workerArguments: LocalInstallation.quickFailover)
            print("chaos: \(count) registrations at \(rate)/s, \(brokers) brokers, seed \(seed); data in \(installation.directory)")
            do {
                let passed = try await exercise(installation, count: count, rate: rate, brokers: brokers, commands: commands,
                                                sentMail: parsed.value("sent-mail") ?? installation.directory + "/outbox",
                                                faultInterval: Double(try parsed.integer("fault-interval") ?? 2),
                                                settle: .seconds(try parsed.integer("settle") ?? 300),
                                                generator: &generator, logger: logger)
                await installation.stop()
                return passed ? .success : .failure
            } catch {
                await installation.stop()
                throw error
            }
        }
    }

    private static func exercise(_ installation: LocalInstallation, count: Int, rate: Int, brokers: Int32, commands: [FaultInjector.Fault],
                                 sentMail: String, faultInterval: Double, settle: Duration,
                                 generator: inout SeededGenerator, logger: Logger) async throws -> Bool {
        let kafka = installation.kafka(clientID: "registrar-chaos")
        let publicKey = installation.publicKey
        let workload = ChaosWorkload(count: count, seal: { publicKey.sealedBase64($0, for: $1, in: $2) },
                                     replyKey: SealingKeyPair.generate().publicKey.base64,
                                     photo: AvatarProcessor().defaultAvatar().jpeg, using: &generator)
        let messages = workload.messages(using: &generator)
        let injector = FaultInjector(installation: installation, brokers: brokers,
                                     faults: LocalInstallation.workerNames.map(FaultInjector.Fault.killWorker) + [.brokerDown, .requestErrors]
                                         + lockable(installation.stores) + commands,
                                     logger: logger)
        let started = ContinuousClock.now

        // Publish at the given rate while faults happen; then let everything settle.
        var faultCounts: [FaultInjector.Fault: Int] = [:]
        var failedFaults: [String] = []
        var faultGenerator = SeededGenerator(seed: generator.next())
        try await withThrowingTaskGroup(of: [(FaultInjector.Fault, Bool)].self) { group in
            group.addTask {
                let producer = try KafkaProducer(configuration: kafka)
                for (index, message) in messages.enumerated() {
                    _ = try await producer.enqueue(message)
                    if index.isMultiple(of: rate) { try await Task.sleep(for: .seconds(1)) }
                }
                try await ChaosReport.waitForOutcomes(workload.firstHalf, kafka: kafka, timeout: .seconds(120))
                for message in workload.signInMessages { _ = try await producer.enqueue(message) }
                try await producer.flush(timeout: .seconds(120))
                await producer.close()
                return []
            }
            let publishing = Double(messages.count) / Double(rate)
            group.addTask { [faultGenerator] in
                // Every kind once per round, in a random order; at least one round, however short the load.
                var generator = faultGenerator
                var injected: [(FaultInjector.Fault, Bool)] = []
                var round: [FaultInjector.Fault] = []
                while ContinuousClock.now - started < .seconds(publishing + 5) || injected.count < injector.faults.count {
                    if round.isEmpty { round = injector.faults.shuffled(using: &generator) }
                    try await Task.sleep(for: .milliseconds(Int(Double.random(in: 0.5...1.5, using: &generator) * faultInterval * 1000)))
                    let fault = round.removeLast()
                    injected.append((fault, try await injector.inject(fault, using: &generator)))
                }
                return injected
            }
            for try await injected in group {
                for (fault, succeeded) in injected {
                    faultCounts[fault, default: 0] += 1
                    if !succeeded { failedFaults.append(fault.name) }
                }
            }
        }
        _ = faultGenerator.next()
        for name in installation.stoppedWorkers { try installation.start(name) }
        print("faults: " + injector.faults.map { "\(faultCounts[$0] ?? 0) × \($0.name)" }.joined(separator: ", "))

        let report = try await ChaosReport.collect(installation, workload: workload, kafka: kafka, settle: settle,
                                                   sentMail: sentMail, failedFaults: failedFaults)
        print("settled in \((ContinuousClock.now - started).formatted(.units(allowed: [.seconds], width: .abbreviated)))")
        report.lines.forEach { print($0) }
        return report.passed
    }

    /// The embedded databases among the stores, which the run can lock itself.
    private static func lockable(_ stores: BackendOptions) -> [FaultInjector.Fault] {
        let databases = [(stores.accounts, "accounts.sqlite"), (stores.profiles, "profiles.sqlite")]
            .filter { $0.0 == nil }.map { stores.dataDirectory + "/" + $0.1 }
        return databases.isEmpty ? [] : [.lockDatabase(databases)]
    }
}
