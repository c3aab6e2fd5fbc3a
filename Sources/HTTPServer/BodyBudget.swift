import Synchronization

/// The request body bytes all connections hold at once, bounded together and per client address: a request
/// takes its bytes as they arrive (an announced body that is never sent holds nothing) and gives them back
/// when it is over.
final class BodyBudget: Sendable {
    let capacity: Int
    /// The most one client address may hold.
    let perAddress: Int
    private let used = Mutex<(total: Int, byAddress: [String: Int])>((0, [:]))

    init(capacity: Int, perAddress: Int) {
        self.capacity = capacity
        self.perAddress = perAddress
    }

    /// Takes `bytes` for `address` if they fit beside what is held, in all and by that address; whether they did.
    func take(_ bytes: Int, for address: String) -> Bool {
        used.withLock { used in
            let mine = used.byAddress[address, default: 0]
            guard used.total + bytes <= capacity, mine + bytes <= perAddress else { return false }
            used.total += bytes
            used.byAddress[address] = mine + bytes
            return true
        }
    }

    func give(_ bytes: Int, for address: String) {
        guard bytes > 0 else { return }
        used.withLock { used in
            used.total -= bytes
            let left = used.byAddress[address, default: 0] - bytes
            used.byAddress[address] = left > 0 ? left : nil
        }
    }
}
