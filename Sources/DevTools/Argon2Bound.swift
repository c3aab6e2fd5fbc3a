import Crypto
import Support
import Synchronization

/// The machine's bound for work that needs one password hash each: as many argon2id hashers as cores,
/// in parallel, with `PasswordHasher`'s parameters (m=19 MiB, t=2, p=1).
enum Argon2Bound {
    /// The hashes `hashers` parallel hashers make over `duration`, and how many per second.
    static func hashesPerSecond(hashers: Int, for duration: Duration) async throws -> (hashes: Int, perSecond: Double) {
        let hasher = PasswordHasher()
        let start = ContinuousClock.now
        let hashes = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<hashers {
                group.addTask {
                    try await offload {
                        var count = 0
                        while ContinuousClock.now - start < duration {
                            _ = try hasher.hash("the bench password \(index)")
                            count += 1
                        }
                        return count
                    }
                }
            }
            return try await group.reduce(0, +)
        }
        return (hashes, Double(hashes) / (ContinuousClock.now - start).timeInterval)
    }
}
