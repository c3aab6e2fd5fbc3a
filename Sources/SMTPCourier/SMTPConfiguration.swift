import Domain
import Foundation

/// Which SMTP server an `SMTPMailer` hands messages to, and how.
public struct SMTPConfiguration: Sendable, CustomStringConvertible {
    /// How the connection is encrypted.
    public enum Security: String, Sendable {
        /// TLS from the first byte (`smtps://`, usually port 465).
        case implicitTLS = "implicit"
        /// Plain connection upgraded with STARTTLS, which the server must offer (`smtp://`, usually 587).
        case startTLS = "starttls"
        /// No encryption: only for a relay on the same host or a test server.
        case none
    }

    public var host: String
    public var port: Int
    public var security: Security
    /// The AUTH user name and password, if the server wants them.
    public var username: String?
    public var password: String?
    /// The envelope sender (`MAIL FROM`, where bounces go); nil for the address of each message's `From`.
    public var envelopeSender: String?
    /// A PEM file of the certificate authorities to trust instead of the system's (a private CA); nil for the system's.
    public var certificateAuthorities: String?
    /// The longest connecting (TLS included) may take.
    public var connectTimeout: Duration
    /// The longest one whole send may take, connecting included.
    public var timeout: Duration

    public init(host: String, port: Int, security: Security = .startTLS, username: String? = nil, password: String? = nil,
                envelopeSender: String? = nil, certificateAuthorities: String? = nil, connectTimeout: Duration = .seconds(10), timeout: Duration = .seconds(60)) {
        self.host = host
        self.port = port
        self.security = security
        self.username = username
        self.password = password
        self.envelopeSender = envelopeSender
        self.certificateAuthorities = certificateAuthorities
        self.connectTimeout = connectTimeout
        self.timeout = timeout
    }

    /// The configuration `smtp://user:password@host:port?tls=starttls|none&from=…&ca-file=…&connect-timeout=10&timeout=60`
    /// or `smtps://…` (implicit TLS) gives: user and password (percent-encoded) are optional, the port
    /// defaults to 587 (`smtp`) or 465 (`smtps`), `tls` to `starttls`, `from` to each message's sender,
    /// `ca-file` to the system's certificate authorities, the timeouts (seconds) to 10 and 60.
    public init(url: String) throws(StoreError) {
        // The URL may hold a password: errors repeat only what is wrong.
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              scheme == "smtp" || scheme == "smtps", let host = components.host, !host.isEmpty else {
            throw StoreError(.permanent, "expected an smtp://host or smtps://host URL")
        }
        let query = try components.parameters(known: ["tls", "from", "ca-file", "connect-timeout", "timeout"])
        let security: Security
        switch (scheme, query["tls"]) {
        case ("smtps", nil), ("smtps", "implicit"): security = .implicitTLS
        case ("smtp", nil): security = .startTLS
        case ("smtp", let value?) where Security(rawValue: value).map({ $0 != .implicitTLS }) == true:
            security = Security(rawValue: value)!
        default: throw StoreError(.permanent, "smtp:// URL parameter tls expects starttls or none (smtps:// for implicit TLS)")
        }
        self.init(host: host, port: components.port ?? (security == .implicitTLS ? 465 : 587), security: security,
                  username: components.user.flatMap { $0.isEmpty ? nil : $0 }, password: components.password,
                  envelopeSender: query["from"], certificateAuthorities: query["ca-file"], connectTimeout: try Self.seconds(query["connect-timeout"], default: 10),
                  timeout: try Self.seconds(query["timeout"], default: 60))
    }

    /// The server's URL for libcurl: no credentials, no parameters.
    var serverURL: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return "\(security == .implicitTLS ? "smtps" : "smtp")://\(name):\(port)"
    }

    /// The server and user, never the password.
    public var description: String {
        "\(serverURL) (\(security.rawValue)\(username.map { ", user \($0)" } ?? ""))"
    }

    private static func seconds(_ value: String?, default defaultValue: Int) throws(StoreError) -> Duration {
        guard let seconds = Int(value ?? String(defaultValue)), seconds > 0 else {
            throw StoreError(.permanent, "smtp:// URL timeouts expect whole seconds")
        }
        return .seconds(seconds)
    }
}
