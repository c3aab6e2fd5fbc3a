import Backends
import Domain
import Foundation
import Installation
import RegistrarClient
import SQLStores
import Support
import Synchronization
import WorkerAssembly

/// The four workers' stacks as their executables build them (`RunnableWorker.stack`, from the same options), on the
/// embedded stores of a fresh data directory (or the production stores, see `StoreLocation`), driven without Kafka:
/// an event goes to the step its route names in the stacks' routing tables, and what that step returns goes on, one
/// event at a time, until nothing is left. The flows over the real steps and stores in milliseconds; what the
/// runtime adds (signatures, dead-letter topics, retries, partitions, consumer groups) is the in-process tier's. The side
/// effects the stores keep (the welcome mails) are performed once every event is delivered, as each worker's relay would
/// (`performEffects`).
final class KafkaFreeSystem: FlowSystem {
    let directory: String
    let backends: StoreLocation
    let sealing: any RequestSealing
    /// Starts at a whole second of the real time, as `InProcessSystem`'s.
    let clock = ManualClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
    var now: Date { max(Date(), clock.now) }
    private let stacks: [WorkerStack]
    private let log = Mutex<(published: [Event], refused: [(event: Event, error: any Error)])>(([], []))
    /// Whether the side effects are held (a worker stopped between its commit and its relay) and whether the mailer fails.
    private let effects = Mutex<(held: Bool, mailFails: Bool)>((false, false))

    /// Runs `body` with the four stacks built with `extraArguments[name]` on their command lines, and removes the data
    /// directory afterwards (keeping it when `body` throws).
    static func with(extraArguments: [String: [String]] = [:], _ body: (KafkaFreeSystem) async throws -> Void) async throws {
        try await KafkaFreeSystem(extraArguments: extraArguments).run(body)
    }

    private init(extraArguments: [String: [String]]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("registrar-kafkafree-\(UUID().uuidString.prefix(8))").path
        try createPrivateDirectory(directory)
        try FileManager.default.createDirectory(atPath: directory + "/logs", withIntermediateDirectories: true)
        let keys = EmbeddedBackends(directory).keysDirectory
        sealing = RequestSealer(publicKey: try KeySet.ensure(in: keys))
        backends = try StoreLocation.make(for: directory)
        let environment = ProcessInfo.processInfo.environment.merging(backends.environment) { $1 }
        let (directory, clock) = (directory, clock)
        stacks = try RunnableWorkers.all.map { kind in
            let parsed = try ParsedArguments(["--data-dir", directory, "--keys-dir", keys] + (extraArguments[kind.name] ?? []),
                                             spec: kind.spec, environment: environment)
            return try kind.stack(parsed, dataDirectory: directory, clock: clock.closure)
        }
    }

    /// Every event published so far, in order.
    var published: [Event] { log.withLock { $0.published } }

    /// The events a step refused with an error (a worker would dead-letter them), with the error.
    var refused: [(event: Event, error: any Error)] { log.withLock { $0.refused } }

    func publish(_ event: Event) async throws {
        try await offload {
            self.deliver(event)
            try self.performEffects()
        }
    }

    /// Holds the side effects the stores keep unperformed (`held`), as a worker stopped after its commit and before its
    /// relay ran; `performEffects(anew:)` performs them as a new worker's relay would.
    func holdEffects(_ held: Bool) { effects.withLock { $0.held = held } }

    /// Makes the mail server fail (`down`) or take mail again: on the production stores the SMTP server defers every
    /// recipient (451), else the stacks' mailer fails as a server that cannot be reached.
    func setMailDown(_ down: Bool) throws {
        if let server = backends.mailServer {
            if down {
                _ = FileManager.default.createFile(atPath: server.deferralFlag, contents: nil)
            } else if FileManager.default.fileExists(atPath: server.deferralFlag) {
                try FileManager.default.removeItem(atPath: server.deferralFlag)
            }
        }
        effects.withLock { $0.mailFails = down && backends.mailServer == nil }
    }

    /// A mailer whose server cannot be reached.
    private static let unreachable: @Sendable (OutboxMessage) throws(StoreError) -> Void = { _ throws(StoreError) in
        throw StoreError(.transient, "the mail server cannot be reached")
    }

    /// The side effects kept and not yet performed, oldest first.
    func keptEffects() throws -> [OutboxMessage] { try backends.options.effectOutbox().pending(limit: 1_000) }

    /// Runs each stack's side-effect relay once (unless held), as its worker does every second: a failing mailer leaves
    /// its effects kept, for the next round. With `anew`, a relay over a newly opened outbox runs instead, as a worker
    /// started again would (held or not).
    func performEffects(anew: Bool = false) throws {
        let (held, mailFails) = effects.withLock { $0 }
        var relays = stacks.compactMap(\.effects)
        if anew {
            let outbox = try backends.options.effectOutbox()
            relays = relays.map { SideEffects(outbox: outbox, performers: $0.performers) }
        } else if held {
            return
        }
        for var relay in relays {
            if mailFails { relay.performers = relay.performers.mapValues { _ in Self.unreachable } }
            try Self.drain(relay)
        }
    }

    /// Performs what `relay` keeps until nothing is left or its performer fails (kept: the next round begins with it), as
    /// the worker does over time: every effect that failed before counts as due again (its back-off passed).
    private static func drain(_ relay: SideEffects) throws(StoreError) {
        while true {
            do {
                guard try relay.performPending(now: .now + .seconds(300)) > 0 else { return }
            } catch {
                if error.kind == .transient { return }
                throw error
            }
        }
    }

    func send(_ request: Event, timeout: Duration) async throws -> Event {
        let before = published.count
        try await publish(request)
        guard let topic = RegistrarClient.outcomeTopic(of: request),
              let outcome = published.dropFirst(before).first(where: { $0.topic == topic && $0.key == request.key }) else {
            throw HarnessError("no outcome for \(request.type) \(request.key); refused: \(refused.map { "\($0.event.type): \($0.error)" })")
        }
        return outcome
    }

    func outcomes() async throws -> [String: [Event]] {
        Dictionary(grouping: published.filter { $0.topic == Topic.registrationOutcomes }, by: \.key)
    }

    /// Runs every worker's periodic work once (the deadline sweep among it) and delivers what it publishes.
    func sweep() async throws {
        try await offload {
            for stack in self.stacks {
                for event in try stack.periodic?() ?? [] { self.deliver(event) }
            }
            try self.performEffects()
        }
    }

    func stop(keepingData: Bool) async {
        if !keepingData { try? FileManager.default.removeItem(atPath: directory) }
    }

    func letTimePass(seconds: Double) {
        clock.advance(by: seconds)
    }

    /// Publishes `event` and delivers it and everything it leads to, in order (blocking: the steps hash passwords and
    /// write to their stores, so callers offload it, as the workers do). A step that throws refuses its event (it is
    /// recorded in `refused`); a refused public request is answered as the worker would answer one it dead-letters.
    private func deliver(_ event: Event) {
        var queue = [event]
        while !queue.isEmpty {
            let next = queue.removeFirst()
            log.withLock { $0.published.append(next) }
            for step in stacks.compactMap({ $0.routing.step(for: next.kind, on: next.topic) }) {
                do {
                    queue += try step.handle(next)
                } catch {
                    log.withLock { $0.refused.append((next, error)) }
                    if let failure = RequestFailure.outcome(ofRequestOn: next.topic, id: next.key, message: "\(error)") {
                        queue += (try? step.answer(deadLettered: failure)) ?? []
                    }
                }
            }
        }
    }
}
