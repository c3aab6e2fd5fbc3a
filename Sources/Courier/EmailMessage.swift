import Foundation

/// One email: a plain-text and an HTML body of the same content, rendered as an RFC 5322
/// `multipart/alternative` message.
public struct EmailMessage: Sendable, Equatable {
    /// The sender, e.g. `Registrar <no-reply@registrar.local>`.
    public var from: String
    /// The recipient's address.
    public var to: String
    public var subject: String
    public var text: String
    public var html: String
    /// Unique and stable per logical message (so a message sent again is recognisable): `local@domain`, without brackets.
    public var messageId: String
    public var date: Date

    public init(from: String, to: String, subject: String, text: String, html: String, messageId: String, date: Date) {
        self.from = from
        self.to = to
        self.subject = subject
        self.text = text
        self.html = html
        self.messageId = messageId
        self.date = date
    }

    /// The message in RFC 5322 form with MIME (RFC 2045/2046) parts: CRLF line ends, 7-bit ASCII,
    /// quoted-printable bodies and RFC 2047 encoded words for a non-ASCII subject.
    public var rendered: String {
        // "=_" cannot occur in quoted-printable text, so the boundary never collides with a body.
        let fnv = messageId.utf8.reduce(UInt64(0xcbf29ce484222325)) { ($0 ^ UInt64($1)) &* 0x100000001b3 }
        let boundary = "=_registrar_" + String(fnv, radix: 36)
        let headers = [
            "Date: \(Self.rfc5322Date(date))",
            "From: \(from)",
            "To: \(to)",
            "Subject: \(MIME.encodedWord(subject))",
            "Message-ID: <\(messageId)>",
            "MIME-Version: 1.0",
            "Content-Type: multipart/alternative; boundary=\"\(boundary)\"",
        ]
        let parts = [("text/plain", text), ("text/html", html)].map { type, body in
            "--\(boundary)\r\nContent-Type: \(type); charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n"
                + MIME.quotedPrintable(body) + "\r\n"
        }
        return headers.joined(separator: "\r\n") + "\r\n\r\n" + parts.joined() + "--\(boundary)--\r\n"
    }

    /// `Tue, 01 Jul 2025 10:00:00 +0000`.
    static func rfc5322Date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
        return formatter.string(from: date)
    }
}
