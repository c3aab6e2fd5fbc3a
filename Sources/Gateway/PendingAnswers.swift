import HTTPServer
import Synchronization

/// The answers to requests by request id, while they are worked out and for `retention` after: a retry of the same
/// request (same id) joins the work under way or gets its answer instead of publishing again; each caller waits a
/// bounded time. Work that ends without an answer (no outcome within the gateway's listening window) leaves
/// nothing behind: a later retry starts it again. A timeout is never an answer.
final class PendingAnswers: Sendable {
    /// What a caller gets.
    enum Lookup: Sendable {
        case answered(HTTPResponse)
        /// Not answered within the wait; the work goes on.
        case pending
    }

    private struct Entry {
        var capability: String
        /// Whether the status URL may show the answer (never for tokens).
        var shown: Bool
        var work: Task<HTTPResponse?, Never>
        var answer: HTTPResponse?
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var byCapability: [String: String] = [:]
        /// Answered ids in the order they were answered, for expiry.
        var answered: [(at: ContinuousClock.Instant, id: String)] = []
        var expired = 0
    }

    private let state = Mutex(State())
    private let retention: Duration

    init(retention: Duration = .seconds(600)) { self.retention = retention }

    /// The answer to request `id` (whose status URL is `capability`): `work`'s, started unless already under way,
    /// awaited at most `wait`.
    func answer(id: String, capability: String, shown: Bool, within wait: Duration,
                _ work: @escaping @Sendable () async -> HTTPResponse?) async -> Lookup {
        let started: Task<HTTPResponse?, Never> = state.withLock { state in
            Self.expire(&state, before: .now - retention)
            if let entry = state.entries[id] { return entry.work }
            let task = Task { [weak self] in
                let answer = await work()
                self?.settle(id, with: answer)
                return answer
            }
            state.entries[id] = Entry(capability: capability, shown: shown, work: task, answer: nil)
            state.byCapability[capability] = id
            return task
        }
        return await withCheckedContinuation { continuation in
            let once = Mutex<CheckedContinuation<Lookup, Never>?>(continuation)
            let settle: @Sendable (Lookup) -> Void = { lookup in once.withLock { $0.take() }?.resume(returning: lookup) }
            let timer = Task {
                // Cancelled: the answer came (and settled first).
                guard (try? await Task.sleep(for: wait)) != nil else { return }
                settle(.pending)
            }
            Task {
                let answer = await started.value
                settle(answer.map(Lookup.answered) ?? .pending)
                timer.cancel()
            }
        }
    }

    /// The answer at the status URL of `capability`: nil when unknown here (or never shown), `.pending` while under way.
    func status(capability: String) -> Lookup? {
        state.withLock { state in
            guard let id = state.byCapability[capability], let entry = state.entries[id], entry.shown else { return nil }
            return entry.answer.map(Lookup.answered) ?? .pending
        }
    }

    /// Requests under way or answered and kept.
    var count: Int { state.withLock { $0.entries.count } }

    private func settle(_ id: String, with answer: HTTPResponse?) {
        state.withLock { state in
            guard let answer else {
                // No answer in the window: forget the request, so that a retry publishes it again.
                if let entry = state.entries.removeValue(forKey: id) { state.byCapability[entry.capability] = nil }
                return
            }
            state.entries[id]?.answer = answer
            state.answered.append((.now, id))
        }
    }

    /// Drops the answers given before `cutoff` (oldest first, each once).
    private static func expire(_ state: inout State, before cutoff: ContinuousClock.Instant) {
        while state.expired < state.answered.count, state.answered[state.expired].at < cutoff {
            let id = state.answered[state.expired].id
            if let entry = state.entries.removeValue(forKey: id) { state.byCapability[entry.capability] = nil }
            state.expired += 1
        }
        if state.expired > 1024, state.expired * 2 > state.answered.count {
            state.answered.removeFirst(state.expired)
            state.expired = 0
        }
    }
}
