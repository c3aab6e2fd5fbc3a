import Foundation
import Support
import Synchronization

/// Follows a local broker across restarts. `registrar-dev broker --data-dir` is in memory and listens on a
/// new port each time it starts; it writes that address to `<data-dir>/broker.bootstrap`. A worker that
/// found its broker there re-reads the file every `interval` and, when the address changes, ends its
/// session on the old broker (finishing the messages in hand) and starts a new one on the new address.
public struct BrokerFollower: Sendable {
    public let file: String
    public let interval: Duration

    public init(file: String, interval: Duration = .seconds(1)) {
        self.file = file
        self.interval = interval
    }

    /// The address in the file, or nil while it is missing or empty.
    public func address() -> String? {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return nil }
        let address = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return address.isEmpty ? nil : address
    }

    /// Runs `session` on `address`, and again on each new address the file names, until `shutdown`.
    /// Each session gets a signal of its own, fired by `shutdown` or by a change of address.
    public func run(from address: String, until shutdown: ShutdownSignal, logger: Logger,
                    _ session: @Sendable (String, ShutdownSignal) async throws -> Void) async throws {
        try await run(from: address, until: shutdown, logger: logger) { address, stop, _ in try await session(address, stop) }
    }

    /// Runs `session` like `run(from:until:logger:_:)`, also giving it a second signal, `moved`, fired (before the
    /// first) when its session ends because the address changed: the old broker is gone from that address.
    public func run(from address: String, until shutdown: ShutdownSignal, logger: Logger,
                    _ session: @Sendable (_ address: String, _ stop: ShutdownSignal, _ moved: ShutdownSignal) async throws -> Void) async throws {
        let state = Mutex<(stopping: Bool, current: ShutdownSignal?)>((false, nil))
        let forwarder = Task {
            await shutdown.wait()
            state.withLock { $0.stopping = true; return $0.current }?.trigger()
        }
        defer { forwarder.cancel() }
        var address = address
        while true {
            let signal = ShutdownSignal(signals: [])
            let moved = ShutdownSignal(signals: [])
            let stopping = state.withLock { $0.current = signal; return $0.stopping }
            if stopping { return }
            let watcher = Task { [address] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    if let next = self.address(), next != address {
                        logger.warning("the local broker moved; reconnecting", ["from": address, "to": next])
                        moved.trigger()
                        signal.trigger()
                        return
                    }
                }
            }
            defer { watcher.cancel() }
            try await session(address, signal, moved)
            if state.withLock({ $0.stopping }) { return }
            address = self.address() ?? address
        }
    }
}
