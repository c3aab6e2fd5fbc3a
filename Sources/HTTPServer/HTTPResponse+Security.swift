extension HTTPResponse {
    /// The content security policy of an answer that loads nothing.
    public static let lockedDownPolicy = "default-src 'none'; frame-ancestors 'none'"

    /// Adds the headers every answer of a Registrar server carries: not cached (unless it says otherwise),
    /// not sniffed, not framed, no referrer, `policy` as its content security policy, and HSTS over TLS.
    public mutating func addSecurityHeaders(tls: Bool, policy: String = lockedDownPolicy) {
        if headers["Cache-Control"] == nil { headers.add("Cache-Control", "no-store") }
        headers.add("X-Content-Type-Options", "nosniff")
        headers.add("X-Frame-Options", "DENY")
        headers.add("Referrer-Policy", "no-referrer")
        headers.add("Content-Security-Policy", policy)
        if tls { headers.add("Strict-Transport-Security", "max-age=31536000; includeSubDomains") }
    }
}
