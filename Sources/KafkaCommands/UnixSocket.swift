import Foundation
import Support
#if canImport(Glibc)
import Glibc
#endif

/// Minimal blocking Unix-domain stream sockets for the mock cluster's control channel.
enum UnixSocket {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// A socket listening at `path` (an existing file there is replaced).
    static func listen(at path: String) throws(Failure) -> Int32 {
        let fd = try makeSocket()
        unlink(path)
        let result = withAddress(path) { bind(fd, $0, $1) }
        guard result == 0, Glibc.listen(fd, 16) == 0 else {
            let error = Failure(description: "cannot listen on \(path): \(String(cString: strerror(errno)))")
            close(fd)
            throw error
        }
        return fd
    }

    /// A socket connected to `path`, whose reads give up after `timeout`.
    static func connect(to path: String, timeout: Duration) throws(Failure) -> Int32 {
        let fd = try makeSocket()
        guard withAddress(path, { Glibc.connect(fd, $0, $1) }) == 0 else {
            let error = Failure(description: "cannot connect to \(path): \(String(cString: strerror(errno)))")
            close(fd)
            throw error
        }
        var limit = timeval(tv_sec: timeout.milliseconds / 1000, tv_usec: timeout.milliseconds % 1000 * 1000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    /// Writes all of `text`.
    static func write(_ text: String, to fd: Int32) -> Bool {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { return false }
            bytes = bytes.dropFirst(written)
        }
        return true
    }

    private static func makeSocket() throws(Failure) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        return fd
    }

    private static func withAddress(
        _ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32
    ) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else {
            errno = ENAMETOOLONG
            return -1
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }
}

/// Reads `\n`-terminated lines from a file descriptor.
struct LineReader {
    private let fd: Int32
    private var buffer: [UInt8] = []

    init(fd: Int32) { self.fd = fd }

    /// The next line without its terminator, or nil at end of input, on error or timeout, or when
    /// `mayRead` (asked before each blocking read) returns false.
    mutating func next(mayRead: () -> Bool = { true }) -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            guard mayRead() else { return nil }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { return nil }
            buffer += chunk[..<count]
        }
    }
}
