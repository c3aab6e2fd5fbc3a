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
    /// The most body bytes all requests together may hold at once (charged as they arrive, held until the answer
    /// is sent); a body that does not fit is answered 503 with `Retry-After`, the rest of it discarded unread.
    public var bodyBudget: Int = 64 << 20
    /// The most of `bodyBudget` the requests of one client address may hold at once (nil: a quarter of it).
    public var bodyBudgetPerAddress: Int?
    public var connectionLimit: Int = 256
    /// Connections one peer address may hold at once (0: no limit); behind a proxy every client shares its address.
    public var connectionsPerAddress: Int = 64
    /// An idle connection is closed after this many seconds.
    public var connectionTimeout: Int = 30
    /// A request's headers must arrive within this time of the connection's start (or of the previous request's end),
    /// and its body within this time of its headers plus `minimumBodyRate`'s time for what arrived: a slower connection
    /// is closed, however steadily it trickles.
    public var headerTimeout: Duration = .seconds(10)
    /// The least body bytes per second a request must send on average, past `headerTimeout`.
    public var minimumBodyRate: Int = 32 * 1024
    /// What TLS offers, as a GnuTLS priority string: by default TLS 1.3 and 1.2 only, ECDHE key exchange and AEAD
    /// ciphers only (AES-GCM, ChaCha20-Poly1305), for RSA or ECDSA (P-256) certificates.
    public var tlsPriorities: String = Self.defaultTLSPriorities
    /// Looks at each request as soon as its headers are in, before its body is read: an answer here is sent at once
    /// and the body discarded; else the request goes on, as returned (e.g. with the client address resolved).
    public var screen: @Sendable (HTTPRequest) -> Screening = { .proceed($0) }
    /// Lets plain HTTP listen off loopback, for endpoints that carry nothing secret (metrics and health,
    /// scraped inside a cluster network).
    public var allowsPlainHTTPOffLoopback = false

    /// TLS 1.3 and 1.2, ECDHE only, AEAD ciphers only.
    public static let defaultTLSPriorities = "SECURE256:+SECURE128:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:-CIPHER-ALL:+AES-256-GCM:"
        + "+AES-128-GCM:+CHACHA20-POLY1305:-KX-ALL:+ECDHE-ECDSA:+ECDHE-RSA"

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

/// What a server does with a request whose headers are in.
public enum Screening: Sendable {
    /// Read its body and handle it, as this request.
    case proceed(HTTPRequest)
    /// Answer this at once, without reading the body.
    case answer(HTTPResponse)
}

/// A server that could not start.
public struct HTTPServerError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
