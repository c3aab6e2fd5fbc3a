import Curl
import Domain

/// One SMTP transaction (`MAIL FROM`, `RCPT TO`, `DATA`) on a libcurl easy handle of its own.
/// libcurl does the dialogue: EHLO, STARTTLS, AUTH and dot-stuffing of the data.
struct SMTPTransfer {
    let configuration: SMTPConfiguration

    /// Sends `data` (an RFC 5322 message) from `sender` to `recipient`, both bare addresses.
    /// Throws a transient error for a 4xx reply or no reply (connecting, TLS, timeouts, lost connections),
    /// a permanent one for a 5xx reply or a configuration libcurl cannot use.
    func send(_ data: [UInt8], from sender: String, to recipient: String) throws(StoreError) {
        try perform(connection + [.mailFrom("<\(sender)>"), .mailRecipients(["<\(recipient)>"]), .upload(data)])
    }

    /// Connects (TLS and AUTH as configured) and sends `NOOP`: whether the server answers, sending nothing.
    func probe() throws(StoreError) {
        try perform(connection + [.method("NOOP")])
    }

    /// The options of a connection to the server: its URL, limits, TLS and credentials.
    private var connection: [CurlOption] {
        var options: [CurlOption] = [
            .url(configuration.serverURL), .connectTimeout(configuration.connectTimeout), .timeout(configuration.timeout),
            .requireTLS(configuration.security != .none),
        ]
        if let certificateAuthorities = configuration.certificateAuthorities {
            options.append(.certificateAuthorities(certificateAuthorities))
        }
        if let username = configuration.username {
            options += [.username(username), .password(configuration.password ?? "")]
        }
        return options
    }

    private func perform(_ options: [CurlOption]) throws(StoreError) {
        do throws(CurlError) {
            _ = try CurlHandle().perform(options)
        } catch {
            throw StoreError(Self.kind(of: error), "\(configuration.serverURL): \(error.detail)")
        }
    }

    /// Permanent for a 5xx reply or a configuration that cannot work (bad URL, no STARTTLS offered,
    /// credentials refused); transient for a 4xx reply and everything else.
    private static func kind(of error: CurlError) -> StoreError.Kind {
        switch (error.responseCode, error.cause) {
        case (500..<600, _): .permanent
        case (400..<500, _): .transient
        case (_, .misuse), (_, .tlsUnavailable), (_, .loginDenied): .permanent
        case (_, .other): .transient
        }
    }
}
