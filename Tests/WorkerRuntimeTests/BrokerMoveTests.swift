import Dispatch
import Domain
import EventTransport
import Foundation
import Support
@testable import TestSupport
import Testing
@testable import WorkerRuntime

/// A local broker restarted elsewhere is gone with every message and offset it held. A worker following it through
/// its address file abandons its session there at once — even with an answer in hand that the old broker will never
/// take — and reads the new broker within seconds: not after the grace period, the consumer's close and the producer's
/// flush against a dead address, nor after the 60 s delivery timeout of the answer it could not publish (50–60 s in a
/// chaos run before).
@Suite(.tags(.kafka, .timed)) struct BrokerMoveTests {
    /// Generous for CI's load (six test chains on 2 cores); the switch takes about 3 s on a quiet machine (the new
    /// group's join), and took 60 s before.
    static let bound = Duration.seconds(15)

    @Test func aWorkerWithAnAnswerInHandReadsAMovedBrokerWithinSeconds() async throws {
        let settings = (session: ConnectionOptions.localSessionTimeout, heartbeat: ConnectionOptions.localHeartbeatInterval)
        var old: WorkerBench? = try WorkerBench(sessionTimeout: settings.session, heartbeatInterval: settings.heartbeat)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("broker-move-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = ConnectionOptions.bootstrapFile(in: directory)
        try Data(old!.cluster.bootstrapServers.utf8).write(to: URL(fileURLWithPath: file))

        let (started, startedContinuation) = AsyncStream.makeStream(of: Void.self)
        let release = DispatchSemaphore(value: 0)
        // Holds the first message until the broker it came from is gone: its answer then has nowhere to go.
        let step = ScriptedStep { event, _ in
            if event.key == "in-hand" {
                startedContinuation.yield()
                release.wait()
            }
            return ScriptedStep.refusal(of: event)
        }
        let base = old!.configuration
        let shutdown = ShutdownSignal(signals: [])
        let following = Task {
            try await BrokerFollower(file: file, interval: .milliseconds(200))
                .run(from: base.bootstrapServers, until: shutdown, logger: Logger(component: "bench-worker")) { address, stop, moved in
                    var configuration = base
                    configuration.bootstrapServers = address
                    let worker = try Worker(name: "bench-worker", configuration: configuration, routing: RoutingTable([step]),
                                            signer: TestEventKeys.account, verifier: TestEventKeys.verifier)
                    try await worker.run(until: stop, abandoningIf: moved)
                }
        }
        try await old!.publish(ScriptedStep.request("in-hand"))
        for await _ in started { break }
        old = nil  // the broker is destroyed: its listeners close, as a SIGKILLed broker's do
        release.signal()
        try await Task.sleep(for: .seconds(1))  // the answer is produced to the broker that is gone

        let new = try WorkerBench(sessionTimeout: settings.session, heartbeatInterval: settings.heartbeat)
        try Data(new.cluster.bootstrapServers.utf8).write(to: URL(fileURLWithPath: file), options: .atomic)
        let moved = ContinuousClock.now
        try await new.publish(ScriptedStep.request("after-move"))
        let answer = try await new.message(on: Topic.authOutcomes, key: "after-move", timeout: Self.bound)
        let switched = ContinuousClock.now - moved
        print("BrokerMoveTests: answered on the moved broker after \(switched) (bound \(Self.bound); 60 s before)")
        #expect(answer != nil, "no answer on the moved broker within \(Self.bound)")
        #expect(step.flows.filter { $0 == "after-move" } == ["after-move"])

        shutdown.trigger()
        try await following.value
    }
}
