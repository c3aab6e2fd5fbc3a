/// A transfer that failed before a complete response arrived, or a handle libcurl could not create.
public struct CurlError: Error, Sendable, CustomStringConvertible {
    /// What the caller needs to tell apart to decide whether trying again can help.
    public enum Cause: Sendable, Equatable {
        /// The request itself is wrong: a bad URL, an unsupported protocol or option.
        case misuse
        /// TLS was required but the server does not offer it.
        case tlsUnavailable
        /// The server refused the credentials.
        case loginDenied
        /// Anything else: connecting, TLS handshakes, timeouts, lost connections.
        case other
    }

    public var cause: Cause
    /// libcurl's short text for what happened.
    public var summary: String
    /// libcurl's own message about this transfer, or `summary` when it left none.
    public var detail: String
    /// The server's last reply code (HTTP status, SMTP reply), or 0 when there was none.
    public var responseCode: Int

    public init(cause: Cause, summary: String, detail: String? = nil, responseCode: Int = 0) {
        self.cause = cause
        self.summary = summary
        self.detail = detail ?? summary
        self.responseCode = responseCode
    }

    public var description: String { detail }
}
