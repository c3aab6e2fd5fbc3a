import HTTPServer
import Synchronization

/// The answers to requests by request id, while they are worked out and for a while after: a retry
/// with the same `Idempotency-Key` and the same body joins the first request's answer instead of
/// publishing again; each caller waits a bounded time.
final class PendingAnswers: Sendable {
    /// What a caller gets.
    enum Lookup {
        case answered(HTTPResponse)
        /// Not answered within the wait; the work goes on.
        case pending
        /// The id was used for a different request.
        case conflict
    }

    private struct Entry {
        /// The request id the work publishes under.
        var id: String
        var digest: [UInt8]
        /// Whether `GET /requests/{id}` may show the answer (never for tokens).
        var shown: Bool
        var work: Task<HTTPResponse, Never>
        var answer: HTTPResponse?
        var created: ContinuousClock.Instant
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let retention: Duration

    init(retention: Duration = .seconds(600)) { self.retention = retention }

    /// The answer for the request under idempotency `key` whose body has `digest` (published as request `id`):
    /// `work`'s, started unless already under way, awaited at most `wait`.
    func answer(key: String, id: String, digest: [UInt8], shown: Bool, within wait: Duration,
                _ work: @escaping @Sendable () async -> HTTPResponse) async -> Lookup {
        let started: Task<HTTPResponse, Never>? = entries.withLock { entries in
            let now = ContinuousClock.now
            entries = entries.filter { now - $0.value.created < retention }
            if let entry = entries[key] { return entry.digest == digest ? entry.work : nil }
            let task = Task { [weak self] in
                let answer = await work()
                self?.record(answer, for: key)
                return answer
            }
            entries[key] = Entry(id: id, digest: digest, shown: shown, work: task, answer: nil, created: now)
            return task
        }
        guard let started else { return .conflict }
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
                settle(.answered(answer))
                timer.cancel()
            }
        }
    }

    /// The answer to request `id` for its status URL: nil when unknown (or never shown), `.pending` while under way.
    func status(of id: String) -> Lookup? {
        entries.withLock { entries in
            guard let entry = entries.values.first(where: { $0.id == id }), entry.shown else { return nil }
            return entry.answer.map(Lookup.answered) ?? .pending
        }
    }

    private func record(_ answer: HTTPResponse, for key: String) {
        entries.withLock { $0[key]?.answer = answer }
    }
}
