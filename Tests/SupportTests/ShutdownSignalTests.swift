import Foundation
import Support
@testable import TestSupport
import Testing

/// The shutdown signal reaches every waiter: the worker loop, the startup wait, the broker follower, the endpoint.
@Suite(.tags(.unit)) struct ShutdownSignalTests {
    @Test func everyWaiterIsWokenAndALateOneReturnsAtOnce() async throws {
        let signal = ShutdownSignal(signals: [])
        let woken = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<5 {
                group.addTask {
                    await signal.wait()
                    return 1
                }
            }
            try await Task.sleep(for: .milliseconds(100))
            #expect(!signal.hasFired)
            signal.trigger()
            return try await group.reduce(0, +)
        }
        #expect(woken == 5)
        #expect(signal.hasFired)
        await signal.wait()
    }

    @Test func aCancelledWaiterReturnsAndASleepEndsEarly() async throws {
        let signal = ShutdownSignal(signals: [])
        let waiting = Task { await signal.wait() }
        waiting.cancel()
        await waiting.value
        #expect(!signal.hasFired)
        #expect(await signal.sleep(for: .milliseconds(10)), "the time ran out")
        let started = ContinuousClock.now
        Task {
            try await Task.sleep(for: .milliseconds(100))
            signal.trigger()
        }
        #expect(await signal.sleep(for: .seconds(30)) == false, "the signal came first")
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test func aProcessSignalWakesEveryWaiter() async throws {
        let signal = ShutdownSignal(signals: [SIGUSR2])
        async let first: Void = signal.wait()
        async let second: Void = signal.wait()
        try await Task.sleep(for: .milliseconds(100))
        kill(getpid(), SIGUSR2)
        _ = await (first, second)
        #expect(signal.hasFired)
    }
}
