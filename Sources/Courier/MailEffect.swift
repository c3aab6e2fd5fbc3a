import Domain
import Foundation

/// A mail as a side effect (``SideEffects``): rendered when the change causing it is made, kept in that change's
/// transaction in its store's side-effect outbox, and sent from there by the worker owning the store once the change
/// committed, through its mailer. It keeps its Message-ID, so a mail sent again (a crash between the send and its
/// removal from the outbox) is the very same message, which a reader's mail system can drop; its key is the account it
/// concerns, whose erasure removes it unsent.
extension EmailMessage {
    /// The topic of mail effects: the mailer performs them.
    public static let effectTopic = "mail"

    /// This message as a side effect of type `kind` (its letter's kind, e.g. `welcome`) about the account `uid`.
    public func effect(kind: String, about uid: String) -> OutboxMessage {
        let payload = Payload(from: from, to: to, subject: subject, text: text, html: html, messageId: messageId,
                              date: date.timeIntervalSince1970)
        // Encoding strings and a number cannot fail.
        let json = (try? JSONEncoder().encode(payload)).map { [UInt8]($0) } ?? []
        return OutboxMessage(topic: Self.effectTopic, key: uid, type: kind, payload: json)
    }

    /// The message a mail effect carries; a payload that is no message is refused for good.
    public init(effect: OutboxMessage) throws(StoreError) {
        guard let payload = try? JSONDecoder().decode(Payload.self, from: Data(effect.payload)) else {
            throw StoreError(.permanent, "a \(effect.type) mail effect carries no mail")
        }
        self.init(from: payload.from, to: payload.to, subject: payload.subject, text: payload.text, html: payload.html,
                  messageId: payload.messageId, date: Date(timeIntervalSince1970: payload.date))
    }

    private struct Payload: Codable {
        var from, to, subject, text, html, messageId: String
        var date: Double
    }
}

extension Mailer {
    /// The performer of mail effects (`SideEffects.performers[EmailMessage.effectTopic]`): sends the message `effect`
    /// carries.
    public func perform(_ effect: OutboxMessage) throws(StoreError) {
        try send(EmailMessage(effect: effect))
    }
}
