import Domain
import EventTransport
import Foundation
import Kafka
import Support
import Synchronization

/// The client of the broker a long-running process (the gateway, a waiting CLI command) talks to now, and
/// requests that keep trying until they are answered: `attempt` runs on the current client and runs again on
/// the next one once the broker moved (a restarted local broker, found through `BrokerFollower`), or after a
/// back-off when publishing failed, until an outcome comes or its window ends. A failed publish is never an
/// answer; a request published again is answered by the workers' answer memo.
public final class ClientSupply: Sendable {
    private let state = Mutex<(current: RegistrarClient?, finished: Bool, lastFailure: (any Error)?)>((nil, false, nil))
    private let logger: Logger

    /// A supply whose clients `supply` makes.
    public init(logger: Logger = Logger(component: "client")) {
        self.logger = logger
    }

    /// A supply of `client` alone, for as long as it listens (an in-process gateway of tests and benchmarks).
    public convenience init(serving client: RegistrarClient, logger: Logger = Logger(component: "client")) {
        self.init(logger: logger)
        state.withLock { $0.current = client }
    }

    /// The client requests go through now; nil while there is none (the broker cannot be reached yet).
    public var current: RegistrarClient? { state.withLock { $0.current } }

    /// Why the last client could not be made (the broker unreachable), until one is.
    public var lastFailure: (any Error)? { state.withLock { $0.lastFailure } }

    /// How long a failed publish waits before it is tried again, at most.
    static let retry = Backoff(attempts: 8, initialDelay: .milliseconds(200), maxDelay: .seconds(5))

    /// Runs `body` with the current client and the time left until `deadline`, again on the next client when the
    /// broker moved (its listener closed) or its producer failed for good, and after a back-off when publishing or
    /// staging failed; nil when no client came before `deadline` (or the supply finished). Other errors (no outcome in
    /// time, an unexpected one) are thrown.
    public func attempt<T>(until deadline: ContinuousClock.Instant,
                           _ body: (RegistrarClient, Duration) async throws -> T) async throws -> T? {
        var failures = 0
        while let client = await client(before: deadline) {
            do {
                return try await body(client, deadline - .now)
            } catch is OutcomeListener.Closed {
                // The client stopped listening (its broker moved, or it was closed): not to be used again.
                state.withLock { if $0.current === client { $0.current = nil } }
                continue
            } catch let error as KafkaError where error.isFatal {
                // Its producer can publish no more (an idempotent producer's fatal error): closed, so that `supply`
                // makes the next client, on which the request is published again.
                logger.error("the client can publish no more; replacing it", ["error": String(describing: error)])
                state.withLock { if $0.current === client { $0.current = nil } }
                await client.close()
            } catch let error where Self.isTransient(error) {
                failures += 1
                logger.warning("a request could not be published; trying again", ["error": String(describing: error), "attempt": failures])
                try? await Task.sleep(for: min(Self.retry.delay(after: failures), max(deadline - .now, .zero)))
            }
        }
        return nil
    }

    /// Whether `error` is a failure to publish (or to stage an avatar) that may pass.
    static func isTransient(_ error: any Error) -> Bool {
        if error is KafkaError { return true }
        if let store = error as? StoreError { return store.kind == .transient }
        return false
    }

    /// The current client, waiting for one until `deadline`; nil when none came or the supply finished.
    public func client(before deadline: ContinuousClock.Instant) async -> RegistrarClient? {
        while ContinuousClock.now < deadline {
            let (current, finished) = state.withLock { ($0.current, $0.finished) }
            if finished { return nil }
            if let current { return current }
            try? await Task.sleep(for: min(.milliseconds(100), deadline - .now))
        }
        return nil
    }

    /// Keeps a current client until `shutdown`, made by `make` for a broker address: one at a time, made anew (with
    /// back-off while the broker cannot be reached) when the one in use stops listening, and, when the address came
    /// from a local broker's bootstrap file (`followFile`), whenever the file names another address. The client in use
    /// is closed before the next is made; requests waiting on it try again on the next (`attempt`).
    public func supply(from address: String, following followFile: String?, until shutdown: ShutdownSignal,
                       make: @escaping @Sendable (String) throws -> RegistrarClient) async {
        let session: @Sendable (String, ShutdownSignal) async throws -> Void = { address, signal in
            await self.serve(address: address, until: signal, make: make)
        }
        if let followFile {
            try? await BrokerFollower(file: followFile).run(from: address, until: shutdown, logger: logger, session)
        } else {
            await serve(address: address, until: shutdown, make: make)
        }
        state.withLock { $0.finished = true }
    }

    /// Serves clients of `address` until `stop` fires.
    private func serve(address: String, until stop: ShutdownSignal, make: @escaping @Sendable (String) throws -> RegistrarClient) async {
        let stopped = Task { await stop.wait() }
        var failures = 0
        while true {
            let client: RegistrarClient
            do {
                client = try make(address)
            } catch {
                failures += 1
                state.withLock { $0.lastFailure = error }
                logger.warning("cannot reach the broker; trying again", ["broker": address, "error": String(describing: error)])
                let delay = Self.retry.delay(after: failures)
                let pause = Task { _ = try? await Task.sleep(for: delay) }
                if await Self.first(of: [stopped, pause]) == 0 { return }
                continue
            }
            failures = 0
            state.withLock { $0.current = client; $0.lastFailure = nil }
            // Until told to stop, or until the client stops listening (its consumer failed): then a new one.
            let ended = Task { await client.listeningEnded() }
            let stopping = await Self.first(of: [stopped, ended]) == 0
            state.withLock { if $0.current === client { $0.current = nil } }
            await client.close()
            if stopping { return }
        }
    }

    /// The index of the first of `tasks` to finish (the others go on).
    private static func first(of tasks: [Task<Void, Never>]) async -> Int {
        await withCheckedContinuation { continuation in
            let once = Mutex<CheckedContinuation<Int, Never>?>(continuation)
            let settle: @Sendable (Int) -> Void = { index in once.withLock { $0.take() }?.resume(returning: index) }
            for (index, task) in tasks.enumerated() {
                Task { await task.value; settle(index) }
            }
        }
    }
}
