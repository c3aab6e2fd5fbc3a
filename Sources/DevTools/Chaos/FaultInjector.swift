import Domain
import Foundation
import Installation
import Kafka
import KafkaCommands
import Support

/// Produces the faults of a chaos run: workers and the gateway SIGKILLed and restarted, brokers taken down
/// and brought back, the local broker SIGKILLed and started again (a worker and the gateway started while it
/// is down), request errors pushed into the broker, embedded databases locked, and the operator's own fault
/// commands for the stores it cannot reach itself (a database restarted or made read-only, an image
/// store failing writes, a mail server deferring sends). With `--long-faults`, also a worker frozen, the
/// long store faults of `ChaosFaults`, a worker and the gateway started during each, and the account worker's wall clock
/// stepped (±150 s, ±10 min) and back.
struct FaultInjector: Sendable {
    /// One kind of fault, counted in the report by its name.
    enum Fault: Hashable, Sendable {
        /// This worker (or the gateway) SIGKILLed and started again after a moment.
        case killWorker(String)
        case brokerDown
        case requestErrors
        /// An exclusive lock held on one of these SQLite databases for a few seconds (store busy).
        case lockDatabase([String])
        /// A shell command that makes a store fail and lets it heal before it exits.
        case command(name: String, shell: String)
        /// The local broker SIGKILLed, down for this many seconds (a worker and the gateway started meanwhile), then
        /// started again (empty, on a new port), everything re-published.
        case killBroker(seconds: Int)
        /// A worker stopped (SIGSTOP) for this many seconds, then continued.
        case freezeWorker(seconds: Int)
        /// The account worker started again on a clock it can step (`SteppedClock`), its wall clock then stepped by
        /// `offset` seconds for `hold` seconds, then back to real time.
        case stepClock(offset: Int, hold: Int)

        var name: String {
            switch self {
            case .killWorker(let worker): "\(worker) SIGKILLed and restarted"
            case .brokerDown: "broker down and up"
            case .requestErrors: "request errors injected"
            case .lockDatabase: "database locked"
            case .command(let name, _): name
            case .killBroker(let seconds): "local broker SIGKILLed for \(seconds) s"
            case .freezeWorker(let seconds): "a worker frozen for \(seconds) s"
            case .stepClock(let offset, _): "account worker's clock stepped \(offset > 0 ? "+" : "")\(offset) s"
            }
        }
    }

    var installation: LocalInstallation
    var brokers: Int32
    /// Every kind this run injects.
    var faults: [Fault]
    /// The run's producer, which re-publishes everything when the broker restarts.
    var publisher: ChaosPublisher
    var logger: Logger
    /// The longest a fault command may take before it is killed and counted as failed.
    var commandLimit: Duration = .seconds(120)
    /// Whether a gateway is in the loop (started again during outages).
    var gateway = false
    /// Whether a worker and the gateway are started again during each fault command (the long store outages).
    var restartsDuringCommands = false
    /// The clock the account worker is started on for the clock steps.
    var clock: SteppedClock?

    /// `--fault NAME=COMMAND` values as faults.
    static func commands(_ values: [String], help: String) throws(UsageError) -> [Fault] {
        try values.map { (value) throws(UsageError) in
            guard let equals = value.firstIndex(of: "="), equals != value.startIndex, value.index(after: equals) != value.endIndex else {
                throw UsageError.invalid("--fault needs NAME=COMMAND, e.g. 'database restarted=pg_ctlcluster 15 main restart'; got '\(value)'", help)
            }
            return .command(name: String(value[..<equals]), shell: String(value[value.index(after: equals)...]))
        }
    }

    /// Injects `fault` and lets it heal; returns whether it could be injected.
    func inject(_ fault: Fault, using generator: inout some RandomNumberGenerator) async throws -> Bool {
        let control = BrokerControl(socketPath: installation.controlSocket)
        switch fault {
        case .killWorker(let worker):
            logger.info("chaos: killing \(worker)")
            await installation.kill(worker)
            try await Task.sleep(for: .milliseconds(Int.random(in: 200...1500, using: &generator)))
            try start(worker)
        case .brokerDown:
            let broker = Int32.random(in: 1...brokers, using: &generator)
            logger.info("chaos: broker \(broker) down")
            try control.send(.brokerDown(broker))
            try await Task.sleep(for: .milliseconds(Int.random(in: 500...2500, using: &generator)))
            try control.send(.brokerUp(broker))
        case .requestErrors:
            // Produce (0) and Fetch (1) answer NOT_LEADER_OR_FOLLOWER (6) and REQUEST_TIMED_OUT (7): retriable.
            let apiKey: Int16 = Bool.random(using: &generator) ? 0 : 1
            logger.info("chaos: request errors on api \(apiKey)")
            try control.send(.requestErrors(apiKey: apiKey, errors: [6, 7, 6]))
        case .lockDatabase(let databases):
            let database = databases.randomElement(using: &generator)!
            let seconds = Int.random(in: 1...3, using: &generator)
            logger.info("chaos: locking \(database) for \(seconds) s")
            return try await run(ChaosFaults.lock([database], seconds: seconds))
        case .command(let name, let shell):
            logger.info("chaos: \(name)")
            guard restartsDuringCommands else { return try await run(shell) }
            async let succeeded = run(shell)
            try await Task.sleep(for: .seconds(1))
            try await restartDuringOutage(LocalInstallation.workerNames.randomElement(using: &generator)!)
            return try await succeeded
        case .killBroker(let seconds):
            logger.info("chaos: SIGKILLing the local broker for \(seconds) s")
            let worker = LocalInstallation.workerNames.randomElement(using: &generator)!
            try await publisher.killBroker { [self] in
                try await Task.sleep(for: .seconds(min(1, seconds)))
                try await restartDuringOutage(worker)
                try await Task.sleep(for: .seconds(max(0, seconds - 1)))
            }
        case .freezeWorker(let seconds):
            let worker = LocalInstallation.workerNames.randomElement(using: &generator)!
            logger.info("chaos: freezing \(worker) for \(seconds) s")
            installation.send(SIGSTOP, to: worker)
            defer { installation.send(SIGCONT, to: worker) }
            try await Task.sleep(for: .seconds(seconds))
        case .stepClock(let offset, let hold):
            guard let clock else { return false }
            // On real time first; the worker stopped (leaving its group: a step is no crash), started again on the clock,
            // joined, then its clock stepped.
            try clock.step(to: 0)
            _ = await installation.signal(WorkerRole.account.workerName, SIGTERM)
            try installation.start(WorkerRole.account.workerName, environment: clock.environment)
            try await Task.sleep(for: .seconds(5))
            logger.info("chaos: stepping the account worker's clock by \(offset) s for \(hold) s")
            try clock.step(to: offset)
            try await Task.sleep(for: .seconds(hold))
            try clock.step(to: 0)
            logger.info("chaos: the account worker's clock back to real time")
        }
        return true
    }

    /// SIGKILLs `worker` and the gateway (when one is in the loop) and starts them again while an outage lasts: they
    /// must wait for what is down, neither exit nor fail a request.
    private func restartDuringOutage(_ worker: String) async throws {
        for name in [worker] + (gateway ? ["gateway"] : []) {
            await installation.kill(name)
            try start(name)
        }
        logger.info("chaos: \(worker)\(gateway ? " and the gateway" : "") started during the outage")
    }

    /// Starts the worker or the gateway `name` again.
    func start(_ name: String) throws {
        name == "gateway" ? try installation.restartGateway() : try installation.start(name)
    }

    /// Runs `shell` with its output appended to the run's fault log; true when it exits 0 in time.
    /// (A daemon the command starts, a restarted database, holds none of this process's descriptors.)
    private func run(_ shell: String) async throws -> Bool {
        let log = installation.logs + "/faults.log"
        let process = try ChildProcess("/bin/bash", ["-c", shell], output: .file(log), errors: .standardOutput)
        let status = await withTaskGroup(of: Int32?.self) { group in
            group.addTask { await process.waitForExit() }
            group.addTask { try? await Task.sleep(for: commandLimit); return nil }
            let first = await group.next()!
            if first == nil { process.send(SIGKILL) }
            group.cancelAll()
            return first
        }
        if status != 0 { logger.error("chaos: fault command failed (\(status.map { "status \($0)" } ?? "timed out")): see \(log)") }
        return status == 0
    }
}
