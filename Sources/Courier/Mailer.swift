import Domain
import Foundation

/// Delivers emails (codes, notifications). Sending the same `messageId` again must not deliver a
/// second copy where the transport can avoid it; failures are `StoreError`s (transient: retry).
public protocol Mailer: Sendable {
    func send(_ message: EmailMessage) throws(StoreError)
    /// Throws a transient error while the mail server cannot take mail (a worker starting then waits); by default
    /// nothing (a mailer with no server).
    func probe() throws(StoreError)
}

extension Mailer {
    public func probe() throws(StoreError) {}
}

/// Who emails come from, and the domain of their Message-IDs.
public struct MailSettings: Sendable, Equatable {
    /// The `From` header, e.g. `Registrar <no-reply@registrar.local>`.
    public var from: String
    /// The right-hand side of Message-IDs.
    public var domain: String

    public init(from: String = "Registrar <no-reply@registrar.local>", domain: String = "registrar.local") {
        self.from = from
        self.domain = domain
    }

    /// A message from the configured sender, with the Message-ID `<kind>.<requestId>@<domain>`.
    public func message(kind: String, requestId: String, to: String, subject: String, text: String, html: String,
                        date: Date) -> EmailMessage {
        EmailMessage(from: from, to: to, subject: subject, text: text, html: html,
                     messageId: "\(kind).\(requestId)@\(domain)", date: date)
    }
}
