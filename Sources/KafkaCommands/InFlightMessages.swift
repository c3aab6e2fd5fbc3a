import Kafka
import Synchronization

/// Consumed messages whose copies are on their way, in consumption order. A message becomes committable once its
/// own copy and those of all earlier messages are acknowledged, so a commit never skips an unacknowledged message
/// (at-least-once). Kept as plain values in storage that is reused: tracking a message allocates nothing once warm.
final class InFlightMessages: Sendable {
    private struct State {
        var waiting: [(id: UInt64, partition: Int32, offset: Int64)] = []
        var start = 0
        /// Acknowledged IDs not yet at the head of `waiting` (or not added yet).
        var acknowledged: Set<UInt64> = []
        /// The next offset to read of each partition, past every message acknowledged in order.
        var committable: [Int32: Int64] = [:]
    }

    private let state = Mutex(State())

    /// Records that the message at `offset` of `partition` was copied as `id`.
    func add(id: UInt64, partition: Int32, offset: Int64) {
        state.withLock { state in
            state.waiting.append((id, partition, offset))
            Self.release(&state)
        }
    }

    /// Records the acknowledgement of the copy `id`.
    func acknowledge(_ id: UInt64) {
        state.withLock { state in
            state.acknowledged.insert(id)
            Self.release(&state)
        }
    }

    /// The next offset to read of each partition that has committable messages.
    var committable: [Int32: Int64] { state.withLock { $0.committable } }

    private static func release(_ state: inout State) {
        while state.start < state.waiting.count, state.acknowledged.remove(state.waiting[state.start].id) != nil {
            let message = state.waiting[state.start]
            state.committable[message.partition] = message.offset + 1
            state.start += 1
        }
        if state.start > 1024 {
            state.waiting.removeFirst(state.start)
            state.start = 0
        }
    }
}
