import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Minimal blocking TCP sockets for the handshake relay: listen on, and connect to, `host:port`.
enum TCPSocket {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// `host:port` split at its last colon (`[::1]:9092` for IPv6).
    static func endpoint(_ text: String) throws(Failure) -> (host: String, port: Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            throw Failure(description: "expected host:port, got '\(text)'")
        }
        let host = text[..<colon].trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        guard !host.isEmpty else { throw Failure(description: "expected host:port, got '\(text)'") }
        return (host, port)
    }

    /// A socket listening on `host:port` (port 0: a free one) and the port it got.
    static func listen(host: String, port: Int) throws(Failure) -> (socket: Int32, port: Int) {
        try withAddresses(host: host, port: port, passive: true) { info throws(Failure) in
            let fd = socket(info.ai_family, info.ai_socktype, info.ai_protocol)
            guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
            var yes: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
            var bound = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let listening = bind(fd, info.ai_addr, info.ai_addrlen) == 0 && Glibc.listen(fd, 128) == 0
                && withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } } == 0
            guard listening else {
                let failure = Failure(description: "cannot listen on \(host):\(port): \(String(cString: strerror(errno)))")
                close(fd)
                throw failure
            }
            let boundPort = withUnsafePointer(to: &bound) { pointer in
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            }
            return (fd, boundPort)
        }
    }

    /// A socket connected to `host:port`.
    static func connect(host: String, port: Int) throws(Failure) -> Int32 {
        try withAddresses(host: host, port: port, passive: false) { info throws(Failure) in
            let fd = socket(info.ai_family, info.ai_socktype, info.ai_protocol)
            guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
            guard Glibc.connect(fd, info.ai_addr, info.ai_addrlen) == 0 else {
                let failure = Failure(description: "cannot connect to \(host):\(port): \(String(cString: strerror(errno)))")
                close(fd)
                throw failure
            }
            var yes: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            return fd
        }
    }

    /// Reads exactly `count` bytes; nil at end of stream or on error.
    static func read(_ count: Int, from fd: Int32) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var offset = 0
        while offset < count {
            let received = bytes[offset...].withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if received < 0, errno == EINTR { continue }
            guard received > 0 else { return nil }
            offset += received
        }
        return bytes
    }

    /// Writes all of `bytes`; false when the peer is gone.
    static func write(_ bytes: [UInt8], to fd: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0, errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// Calls `body` with each address `host:port` resolves to (IPv4 first) until one succeeds.
    private static func withAddresses<T>(host: String, port: Int, passive: Bool,
                                         _ body: (addrinfo) throws(Failure) -> T) throws(Failure) -> T {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = passive ? AI_PASSIVE : 0
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw Failure(description: "cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(first) }
        var candidates: [addrinfo] = []
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let info = next {
            candidates.append(info.pointee)
            next = info.pointee.ai_next
        }
        var failure = Failure(description: "no address for \(host)")
        for info in candidates.sorted(by: { ($0.ai_family == AF_INET ? 0 : 1) < ($1.ai_family == AF_INET ? 0 : 1) }) {
            do throws(Failure) {
                return try body(info)
            } catch {
                failure = error
            }
        }
        throw failure
    }
}
