import Crypto
import Synchronization

/// The console's CSRF tokens: one issued with every page, good for one form submission within `lifetime`.
final class FormTokens: Sendable {
    private let issued = Mutex<[String: ContinuousClock.Instant]>([:])
    private let lifetime: Duration
    private let limit: Int

    init(lifetime: Duration = .seconds(15 * 60), limit: Int = 1000) {
        self.lifetime = lifetime
        self.limit = limit
    }

    /// A new token for one page's forms.
    func issue() -> String {
        let token = SecureRandom.token(bytes: 24)
        let now = ContinuousClock.now
        issued.withLock { tokens in
            tokens = tokens.filter { now - $0.value < lifetime }
            if tokens.count >= limit, let oldest = tokens.min(by: { $0.value < $1.value }) { tokens[oldest.key] = nil }
            tokens[token] = now
        }
        return token
    }

    /// Whether `token` was issued and not yet used or expired; it cannot be used again.
    func redeem(_ token: String) -> Bool {
        let now = ContinuousClock.now
        return issued.withLock { tokens in
            guard let issuedAt = tokens.removeValue(forKey: token) else { return false }
            return now - issuedAt < lifetime
        }
    }
}
