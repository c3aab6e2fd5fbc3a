#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Ends connections that are too slow, however steadily they trickle (libmicrohttpd's own timeout only ends idle
/// ones): a request's headers must arrive within `headerTimeout` of the connection's start or of the previous
/// request's end, and its body within `headerTimeout` of its headers plus what arrived at `minimumBodyRate`. No
/// deadline runs while the handler works. A connection past its deadline has its socket shut down, which
/// libmicrohttpd sees as the peer going away; the socket is closed by libmicrohttpd only after it told us
/// (`closed`, under the same lock), so a shut-down socket is always still this connection's.
final class ConnectionDeadlines: Sendable {
    private enum Phase {
        case head(since: ContinuousClock.Instant)
        case body(since: ContinuousClock.Instant, received: Int)
        case handling
    }

    private struct Watch {
        var socket: Int32
        var phase: Phase
    }

    let headerTimeout: Duration
    let minimumBodyRate: Int
    private let watches = Mutex<[UInt: Watch]>([:])

    init(headerTimeout: Duration, minimumBodyRate: Int) {
        self.headerTimeout = headerTimeout
        self.minimumBodyRate = max(1, minimumBodyRate)
    }

    func opened(_ connection: UInt, socket: Int32) {
        watches.withLock { $0[connection] = Watch(socket: socket, phase: .head(since: .now)) }
    }

    func closed(_ connection: UInt) {
        _ = watches.withLock { $0.removeValue(forKey: connection) }
    }

    /// The connection's request has its headers: its body's deadline runs.
    func headersArrived(_ connection: UInt) { set(connection, .body(since: .now, received: 0)) }

    /// `count` more body bytes arrived.
    func received(_ count: Int, on connection: UInt) {
        watches.withLock { watches in
            if case .body(let since, let received)? = watches[connection]?.phase {
                watches[connection]?.phase = .body(since: since, received: received + count)
            }
        }
    }

    /// The handler works on the request: no deadline.
    func handling(_ connection: UInt) { set(connection, .handling) }

    /// The request is over: the next one's headers must come in time.
    func requestEnded(_ connection: UInt) { set(connection, .head(since: .now)) }

    private func set(_ connection: UInt, _ phase: Phase) {
        watches.withLock { $0[connection]?.phase = phase }
    }

    /// Shuts down the sockets of connections past their deadline; returns how many.
    @discardableResult
    func endLateConnections(now: ContinuousClock.Instant = .now) -> Int {
        watches.withLock { watches in
            var ended = 0
            for (connection, watch) in watches where isLate(watch.phase, now: now) {
                shutdown(watch.socket, Int32(SHUT_RDWR))
                watches[connection]?.phase = .handling
                ended += 1
            }
            return ended
        }
    }

    private func isLate(_ phase: Phase, now: ContinuousClock.Instant) -> Bool {
        switch phase {
        case .head(let since): now - since > headerTimeout
        case .body(let since, let received): now - since > headerTimeout + .seconds(Double(received) / Double(minimumBodyRate))
        case .handling: false
        }
    }
}
