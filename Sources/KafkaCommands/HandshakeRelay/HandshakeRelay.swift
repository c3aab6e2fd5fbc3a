import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A TCP relay in front of a Kafka-protocol broker that lets librdkafka 2.0.2 (Debian 12) complete its handshake
/// with Tansu: every frame passes through unchanged, except the answers to ApiVersions requests of version 3 or
/// later, whose tagged fields it drops (see `ApiVersionsAnswer`).
///
/// For development and tests only: Apache Kafka and Redpanda need nothing of it. The broker must advertise the
/// relay's address (Tansu's `--advertised-listener-url`), so that every connection a client opens after its
/// bootstrap comes through the relay too. A connection whose broker cannot be reached is closed (the client
/// retries), so the relay outlives restarts of the broker behind it.
public final class HandshakeRelay: Sendable {
    /// The port the relay listens on.
    public let port: Int
    private let listener: Int32
    private let broker: (host: String, port: Int)
    private let connections = Mutex(0)

    /// Starts relaying `listen` (`host:port`; port 0 picks a free one) to `broker` (`host:port`).
    public init(listen: String, broker: String) throws {
        let address = try TCPSocket.endpoint(listen)
        self.broker = try TCPSocket.endpoint(broker)
        (listener, port) = try TCPSocket.listen(host: address.host, port: address.port)
        Thread { [self] in acceptConnections() }.start()
    }

    /// How many client connections are open.
    public var openConnections: Int { connections.withLock { $0 } }

    /// Stops accepting connections (those open go on until either side closes).
    public func close() {
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func acceptConnections() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0, errno == EINTR || errno == ECONNABORTED { continue }
            guard client >= 0 else { break }
            guard let upstream = try? TCPSocket.connect(host: broker.host, port: broker.port) else {
                Glibc.close(client)
                continue
            }
            var yes: Int32 = 1
            setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            relay(client: client, upstream: upstream)
        }
        Glibc.close(listener)
    }

    /// Two threads, one per direction; whichever ends first shuts both sockets, and the last closes them.
    private func relay(client: Int32, upstream: Int32) {
        connections.withLock { $0 += 1 }
        let connection = Connection(client: client, upstream: upstream) { [self] in connections.withLock { $0 -= 1 } }
        Thread {
            Self.pump(from: client, to: upstream) { frame in
                // Request header: api key (int16), api version (int16), correlation id (int32).
                if frame.count >= 8, frame[0] == 0, frame[1] == Self.apiVersionsKey, Int16(frame[2]) << 8 | Int16(frame[3]) >= 3 {
                    connection.expectApiVersionsAnswer(Self.int32(frame, at: 4))
                }
                return frame
            }
            connection.end()
        }.start()
        Thread {
            Self.pump(from: upstream, to: client) { frame in
                // Response header: correlation id (int32); ApiVersions answers keep header version 0 (no tags).
                guard frame.count >= 4, connection.isApiVersionsAnswer(Self.int32(frame, at: 0)),
                      let body = ApiVersionsAnswer.withoutTaggedFields(Array(frame[4...])) else { return frame }
                return Array(frame[..<4]) + body
            }
            connection.end()
        }.start()
    }

    /// One client's connection and its broker's: the ApiVersions requests awaiting their answer, and who has ended.
    private final class Connection: Sendable {
        private let client: Int32
        private let upstream: Int32
        private let closed: @Sendable () -> Void
        private let state = Mutex((awaitedAnswers: Set<Int32>(), endedDirections: 0))

        init(client: Int32, upstream: Int32, closed: @escaping @Sendable () -> Void) {
            self.client = client
            self.upstream = upstream
            self.closed = closed
        }

        func expectApiVersionsAnswer(_ correlationID: Int32) {
            _ = state.withLock { $0.awaitedAnswers.insert(correlationID) }
        }

        /// Whether the answer with `correlationID` is one to an ApiVersions request (forgetting it).
        func isApiVersionsAnswer(_ correlationID: Int32) -> Bool {
            state.withLock { $0.awaitedAnswers.remove(correlationID) != nil }
        }

        /// One direction ended: the other's blocking read returns, and the second to end closes both sockets.
        func end() {
            shutdown(client, Int32(SHUT_RDWR))
            shutdown(upstream, Int32(SHUT_RDWR))
            guard state.withLock({ state in state.endedDirections += 1; return state.endedDirections }) == 2 else { return }
            Glibc.close(client)
            Glibc.close(upstream)
            closed()
        }
    }

    private static let apiVersionsKey: UInt8 = 18
    /// The largest frame relayed (a fetch answer is bounded by the client's `fetch.max.bytes`, 50 MiB by default).
    private static let largestFrame = 256 << 20

    /// Copies size-prefixed frames from `source` to `destination`, each through `transform`, until either side closes.
    private static func pump(from source: Int32, to destination: Int32, _ transform: ([UInt8]) -> [UInt8]) {
        while let size = TCPSocket.read(4, from: source).map({ Int(int32($0, at: 0)) }), (0...largestFrame).contains(size),
              let frame = TCPSocket.read(size, from: source) {
            let relayed = transform(frame)
            guard TCPSocket.write(bigEndian(Int32(relayed.count)) + relayed, to: destination) else { return }
        }
    }

    private static func int32(_ bytes: [UInt8], at offset: Int) -> Int32 {
        bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int32($1) }
    }

    private static func bigEndian(_ value: Int32) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian, Array.init)
    }
}
