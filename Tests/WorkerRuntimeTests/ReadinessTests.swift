import Domain
import Foundation
import Support
import Synchronization
@testable import TestSupport
import Testing
@testable import WorkerRuntime

/// Readiness (`Worker.health()`, served as `/readyz`) names the failing dependency whichever work waits on it — a
/// partition's lane or the periodic work — until it recovers.
@Suite(.tags(.kafka)) struct ReadinessTests {
    /// The periodic work (the stuck-saga sweep) meets the locked database and retries, while a request waits behind
    /// it (for the database's one connection) without failing itself: the periodic work's wait is reported.
    @Test func thePeriodicWorkWaitingForADependencyIsReported() async throws {
        let bench = try WorkerBench()
        let database = Lock()
        let step = ScriptedStep { event, _ in
            database.waitUntilReleased()
            return ScriptedStep.refusal(of: event)
        }
        let periodic: @Sendable () throws -> [Event] = {
            guard database.isReleased else { throw StoreError(.transient, "database is locked (test)") }
            return []
        }
        let (worker, running) = try Self.run(step, on: bench, periodic: periodic)
        try await bench.publish(ScriptedStep.request("held-up"))
        let waiting = try await Self.health(of: worker) { !$0.dependencyFailures.isEmpty && !step.flows.isEmpty }
        #expect(waiting.reasons == ["waiting for a dependency on the periodic work: database is locked (test)"], "\(waiting)")
        #expect(!waiting.isReady && step.flows == ["held-up"], "the request waits behind it, on its first attempt")
        database.release()
        _ = try #require(try await bench.message(on: Topic.authOutcomes, key: "held-up"))
        _ = try await Self.health(of: worker) { $0.dependencyFailures.isEmpty }
        try await running.stop()
    }

    /// A request's step meets the locked database and retries: its partition's wait is reported, until it recovers.
    @Test func aPartitionWaitingForADependencyIsReported() async throws {
        let bench = try WorkerBench()
        let database = Lock()
        let step = ScriptedStep { event, _ in
            guard database.isReleased else { throw StoreError(.transient, "database is locked (test)") }
            return ScriptedStep.refusal(of: event)
        }
        let (worker, running) = try Self.run(step, on: bench, periodic: { [] })
        try await bench.publish(ScriptedStep.request("retried"))
        let waiting = try await Self.health(of: worker) { !$0.dependencyFailures.isEmpty }
        #expect(waiting.reasons == ["waiting for a dependency on \(Topic.authRequests)/0: database is locked (test)"], "\(waiting)")
        database.release()
        _ = try #require(try await bench.message(on: Topic.authOutcomes, key: "retried"))
        _ = try await Self.health(of: worker) { $0.dependencyFailures.isEmpty }
        try await running.stop()
    }

    /// A database held locked until released.
    private final class Lock: Sendable {
        private let released = Mutex(false)

        var isReleased: Bool { released.withLock { $0 } }

        func release() { released.withLock { $0 = true } }

        func waitUntilReleased() {
            while !isReleased { Thread.sleep(forTimeInterval: 0.01) }
        }
    }

    /// A worker of `bench` running `step`, and `periodic` every 10 ms; its back-off pauses at most 10 ms.
    private static func run(_ step: ScriptedStep, on bench: WorkerBench,
                            periodic: @escaping @Sendable () throws -> [Event]) throws -> (Worker, WorkerBench.Running) {
        let worker = try Worker(name: "readiness-worker", configuration: bench.configuration, routing: RoutingTable([step]),
                                signer: TestEventKeys.account, verifier: TestEventKeys.verifier,
                                sleep: { try await Task.sleep(for: min($0, .milliseconds(10))) })
        let shutdown = ShutdownSignal(signals: [])
        return (worker, WorkerBench.Running(shutdown: shutdown,
                                            task: Task { try await worker.run(until: shutdown, every: .milliseconds(10), periodic: periodic) }))
    }

    /// `worker`'s health once `condition` holds (within a minute).
    private static func health(of worker: Worker, until condition: (WorkerHealth) -> Bool) async throws -> WorkerHealth {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            let health = worker.health()
            if condition(health) { return health }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw HarnessError("not so within a minute: \(worker.health())")
    }
}
