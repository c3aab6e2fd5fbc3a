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

/// Who emails come from, what they are signed with, and the templates they are written from.
public struct MailSettings: Sendable {
    /// The `From` header, e.g. `Registrar <no-reply@registrar.local>`.
    public var from: String
    /// The right-hand side of Message-IDs.
    public var domain: String
    /// The product's name as mails show it (`{{product}}`).
    public var product: String
    /// Where users are told to write for help (`{{support}}`).
    public var support: String
    public var templates: MailTemplates

    public init(from: String = "Registrar <no-reply@registrar.local>", domain: String = "registrar.local",
                product: String = "Registrar", support: String = "support@registrar.local", templates: MailTemplates = .builtIn) {
        self.from = from
        self.domain = domain
        self.product = product
        self.support = support
        self.templates = templates
    }

    /// `letter` to `to`, in the locale `locale` (a request's `locale` field) selects, from the configured sender,
    /// with the Message-ID `<kind>.<requestId>@<domain>`: the same request mails the same message.
    public func message(_ letter: Letter, values: [String: String] = [:], locale: String?, to: String, requestId: String,
                        date: Date) throws(StoreError) -> EmailMessage {
        let common = ["product": product, "support": support, "email": to]
        let rendered = try templates.render(letter, locale: locale, values: values.merging(common) { own, _ in own })
        return EmailMessage(from: from, to: to, subject: rendered.subject, text: rendered.text, html: rendered.html,
                            messageId: "\(letter.kind).\(requestId)@\(domain)", date: date)
    }
}
