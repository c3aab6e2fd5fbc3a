import Foundation
import Synchronization

/// A one-request-per-connection HTTP relay in front of a test server: records every request it
/// receives, and answers the next ones with an injected status instead of relaying them when told to:
/// by `inject(_:)`, or by another process (a chaos run's fault command) through `injectionURL(_:)`;
/// or answers every request 503 for a while (`outageURL(seconds:)`).
public final class HTTPRelay: Sendable {
    /// A request as it arrived: the head's lines and the body.
    public struct Request: Sendable {
        public var method: String
        /// The request target, path and query as sent.
        public var target: String
        public var headers: [(name: String, value: String)]
        public var body: [UInt8]

        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    public let port: Int
    private let upstreamPort: Int
    private let listener: Int32
    private let state = Mutex<(requests: [Request], faults: [Int], outageEnd: ContinuousClock.Instant?)>(([], [], nil))

    public var endpoint: String { "http://127.0.0.1:\(port)" }
    public var requests: [Request] { state.withLock { $0.requests } }

    /// Starts relaying from a free port to 127.0.0.1:`upstreamPort`.
    public init(to upstreamPort: Int) throws {
        self.upstreamPort = upstreamPort
        (listener, port) = try listenOnLoopback()
        Thread { [self] in serve() }.start()
    }

    /// Stops accepting connections.
    public func close() {
        shutdown(listener, Int32(SHUT_RDWR))
    }

    /// How many injected statuses are still to be answered.
    public var pendingFaults: Int { state.withLock { $0.faults.count } }

    /// Answers the next requests with these statuses, one each, instead of relaying them.
    public func inject(_ statuses: [Int]) {
        state.withLock { $0.faults += statuses }
    }

    /// A URL that, requested from anywhere (e.g. `curl -X POST`), does what `inject(statuses)` does.
    public func injectionURL(_ statuses: [Int]) -> String {
        endpoint + Self.controlPath + statuses.map(String.init).joined(separator: ",")
    }

    /// A URL that, requested from anywhere, makes the relay answer every request 503 for `seconds`.
    public func outageURL(seconds: Int) -> String {
        endpoint + Self.outagePath + String(seconds)
    }

    private static let controlPath = "/__relay/inject?statuses="
    private static let outagePath = "/__relay/outage?seconds="
    private static let controlAnswer = Array("HTTP/1.1 204 Injected\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)

    private func serve() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            handle(client)
            Glibc.close(client)
        }
    }

    private func handle(_ client: Int32) {
        guard let (raw, request) = Self.readRequest(from: client) else { return }
        if request.target.hasPrefix(Self.controlPath) {
            inject(request.target.dropFirst(Self.controlPath.count).split(separator: ",").compactMap { Int($0) })
            Self.write(Self.controlAnswer, to: client)
            return
        }
        if request.target.hasPrefix(Self.outagePath), let seconds = Int(request.target.dropFirst(Self.outagePath.count)) {
            state.withLock { $0.outageEnd = .now + .seconds(seconds) }
            Self.write(Self.controlAnswer, to: client)
            return
        }
        let fault = state.withLock { state -> Int? in
            state.requests.append(request)
            if let end = state.outageEnd, end > .now { return 503 }
            return state.faults.isEmpty ? nil : state.faults.removeFirst()
        }
        if let status = fault {
            Self.write(Array("HTTP/1.1 \(status) Injected\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8), to: client)
            return
        }
        guard let upstream = connectToLoopback(port: upstreamPort) else { return }
        defer { Glibc.close(upstream) }
        Self.write(raw, to: upstream)
        // One request per connection: the upstream closes after its response.
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(upstream, &buffer, buffer.count)
            guard count > 0 else { return }
            Self.write(Array(buffer[..<count]), to: client)
        }
    }

    /// Reads one request; returns it as bytes to relay (with `Connection: close`) and parsed.
    private static func readRequest(from client: Int32) -> ([UInt8], Request)? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let separator = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        var request: Request?
        while true {
            if headEnd == nil, let range = bytes.firstRange(of: separator) {
                headEnd = range.upperBound
                request = parseHead(String(decoding: bytes[..<range.lowerBound], as: UTF8.self))
            }
            if let headEnd, var parsed = request {
                let length = Int(parsed.header("Content-Length") ?? "0") ?? 0
                if bytes.count >= headEnd + length {
                    parsed.body = Array(bytes[headEnd..<(headEnd + length)])
                    let head = ([parsed.method + " " + parsed.target + " HTTP/1.1"]
                        + parsed.headers.filter { $0.name.lowercased() != "connection" }.map { "\($0.name): \($0.value)" }
                        + ["Connection: close"]).joined(separator: "\r\n") + "\r\n\r\n"
                    return (Array(head.utf8) + parsed.body, parsed)
                }
            }
            let count = read(client, &buffer, buffer.count)
            guard count > 0 else { return nil }
            bytes += buffer[..<count]
        }
    }

    private static func parseHead(_ head: String) -> Request? {
        let lines = head.components(separatedBy: "\r\n")
        let start = lines[0].split(separator: " ")
        guard start.count == 3 else { return nil }
        let headers = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return Request(method: String(start[0]), target: String(start[1]), headers: headers, body: [])
    }

    private static func write(_ bytes: [UInt8], to socket: Int32) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return }
            offset += count
        }
    }
}
