import Foundation
import Kafka
import Support

/// Produces the faults of a chaos run at random moments: workers SIGKILLed and restarted, brokers
/// taken down and brought back, request errors pushed into the broker, databases locked.
struct FaultInjector {
    var installation: LocalInstallation
    var brokers: Int32
    var logger: Logger

    /// The kinds of fault, counted in the report.
    enum Fault: String, CaseIterable {
        case killWorker = "worker SIGKILLed and restarted"
        case brokerDown = "broker down and up"
        case requestErrors = "request errors injected"
        case lockedDatabase = "database locked (store unavailable)"
    }

    /// Injects one random fault and lets it heal; returns which.
    func injectOne(using generator: inout some RandomNumberGenerator) async throws -> Fault {
        let fault = Fault.allCases.randomElement(using: &generator)!
        let control = BrokerControl(socketPath: installation.controlSocket)
        switch fault {
        case .killWorker:
            let worker = ["account-worker", "image-worker", "profile-worker"].randomElement(using: &generator)!
            logger.info("chaos: killing \(worker)")
            await installation.kill(worker)
            try await Task.sleep(for: .milliseconds(Int.random(in: 200...1500, using: &generator)))
            try installation.start(worker)
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
        case .lockedDatabase:
            let database = ["accounts.sqlite", "profiles.sqlite"].randomElement(using: &generator)!
            let seconds = Int.random(in: 1...3, using: &generator)
            logger.info("chaos: locking \(database) for \(seconds) s")
            let locker = try ChildProcess("/bin/sh", ["-c", "(echo 'BEGIN EXCLUSIVE;'; sleep \(seconds); echo 'COMMIT;') | sqlite3 '\(installation.directory)/\(database)'"],
                                          stderrPath: installation.logs + "/chaos.log")
            _ = await locker.waitForExit()
        }
        return fault
    }
}
