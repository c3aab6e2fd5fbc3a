import Foundation

/// Where and how an `HTTPServer` listens.
public struct HTTPServerConfiguration: Sendable {
    /// The certificate chain and private key, PEM, that TLS is served with.
    public struct TLS: Sendable {
        public var certificatePEM: String
        public var keyPEM: String

        public init(certificatePEM: String, keyPEM: String) {
            self.certificatePEM = certificatePEM
            self.keyPEM = keyPEM
        }

        /// Reads both from PEM files.
        public init(certificateFile: String, keyFile: String) throws {
            do {
                certificatePEM = try String(contentsOfFile: certificateFile, encoding: .utf8)
                keyPEM = try String(contentsOfFile: keyFile, encoding: .utf8)
            } catch {
                throw HTTPServerError("cannot read the TLS certificate or key: \(error.localizedDescription)")
            }
        }
    }

    /// A numeric IPv4 or IPv6 address.
    public var host: String
    /// 0 for any free port (`HTTPServer.port` tells which).
    public var port: Int
    /// nil serves plain HTTP, which only a loopback `host` may.
    public var tls: TLS?
    /// The most body bytes a request may carry, by method and path; a larger one is answered 413 unread.
    public var bodyLimit: @Sendable (_ method: String, _ path: String) -> Int
    /// The most body bytes all requests together may hold at once (from the headers until the answer is sent);
    /// a body that does not fit beside them is answered 503 with `Retry-After`, unread.
    public var bodyBudget: Int = 64 << 20
    public var connectionLimit: Int = 256
    /// An idle connection is closed after this many seconds.
    public var connectionTimeout: Int = 30
    /// Lets plain HTTP listen off loopback, for endpoints that carry nothing secret (metrics and health,
    /// scraped inside a cluster network).
    public var allowsPlainHTTPOffLoopback = false

    public init(host: String, port: Int, tls: TLS? = nil, bodyLimit: @escaping @Sendable (String, String) -> Int) {
        self.host = host
        self.port = port
        self.tls = tls
        self.bodyLimit = bodyLimit
    }

    /// Throws what a server would be refused for: plain HTTP off loopback (unless allowed), a port out of range.
    public func validate() throws {
        guard tls != nil || allowsPlainHTTPOffLoopback || Self.isLoopback(host) else {
            throw HTTPServerError("plain HTTP is served only on a loopback address; give a TLS certificate and key for \(host)")
        }
        guard (0...65535).contains(port) else { throw HTTPServerError("port \(port) is out of range") }
    }

    /// `host:port` split (an IPv6 host may be in brackets); nil when `address` is not of that form.
    public static func hostAndPort(_ address: String) -> (host: String, port: Int)? {
        guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]) else { return nil }
        return (String(address[..<colon]).trimmingCharacters(in: ["[", "]"]), port)
    }

    /// Whether `host` is a loopback address (127.0.0.0/8 or ::1).
    public static func isLoopback(_ host: String) -> Bool {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return host == "::1" || (parts.count == 4 && parts.first == "127" && parts.allSatisfy { UInt8($0) != nil })
    }
}

/// A server that could not start.
public struct HTTPServerError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
