import Kafka
import Synchronization

/// Consumed messages whose output is on its way, in consumption order. A message becomes
/// committable once its own output and those of all earlier messages are acknowledged, so a
/// commit never skips an unacknowledged message (at-least-once).
final class InFlightMessages: Sendable {
    private struct State {
        var waiting: [(id: UInt64, message: KafkaMessage)] = []
        var start = 0
        /// Acknowledged IDs not yet at the head of `waiting` (or not added yet).
        var acknowledged: Set<UInt64> = []
    }

    private let state = Mutex(State())
    /// Called in consumption order, under the lock, with each message that became committable.
    private let committable: @Sendable (KafkaMessage) -> Void

    init(committable: @escaping @Sendable (KafkaMessage) -> Void) {
        self.committable = committable
    }

    /// Records that `message`'s output was enqueued as `id`.
    func add(_ message: KafkaMessage, id: UInt64) {
        state.withLock { state in
            state.waiting.append((id, message))
            release(&state)
        }
    }

    /// Records the acknowledgement of the output `id`.
    func acknowledge(_ id: UInt64) {
        state.withLock { state in
            state.acknowledged.insert(id)
            release(&state)
        }
    }

    private func release(_ state: inout State) {
        while state.start < state.waiting.count, state.acknowledged.remove(state.waiting[state.start].id) != nil {
            committable(state.waiting[state.start].message)
            state.start += 1
        }
        if state.start > 1024 {
            state.waiting.removeFirst(state.start)
            state.start = 0
        }
    }
}
