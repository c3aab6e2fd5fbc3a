/// One setting of a transfer: the libcurl options Registrar uses, in Swift terms.
public enum CurlOption: Sendable {
    case url(String)
    /// The limit on the whole transfer (`CURLOPT_TIMEOUT_MS`).
    case timeout(Duration)
    /// The limit on connecting, TLS included (`CURLOPT_CONNECTTIMEOUT_MS`).
    case connectTimeout(Duration)
    case username(String)
    case password(String)
    /// Signs the request with AWS Signature Version 4 for a provider such as `aws:amz:<region>:s3`
    /// (`CURLOPT_AWS_SIGV4`); every header given is signed.
    case awsSignature(String)
    /// Request headers, each `Name: value` (`CURLOPT_HTTPHEADER`).
    case headers([String])
    /// A request method other than GET (`CURLOPT_CUSTOMREQUEST`).
    case method(String)
    /// A HEAD request: the response has no body (`CURLOPT_NOBODY`).
    case headOnly
    /// The request body, sent from memory (even an empty one), never read from standard input (`CURLOPT_POSTFIELDS`).
    case body([UInt8])
    /// Data uploaded through libcurl's read callback (`CURLOPT_UPLOAD`): an SMTP message.
    case upload([UInt8])
    /// TLS is required (implicit, or STARTTLS), or not used at all (`CURLOPT_USE_SSL`).
    case requireTLS(Bool)
    /// The file of certificate authorities to trust instead of the system's (`CURLOPT_CAINFO`).
    case certificateAuthorities(String)
    /// The SMTP envelope sender, e.g. `<noreply@example.com>` (`CURLOPT_MAIL_FROM`).
    case mailFrom(String)
    /// The SMTP envelope recipients (`CURLOPT_MAIL_RCPT`).
    case mailRecipients([String])
}
