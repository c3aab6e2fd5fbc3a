import Courier
import Domain
import Registration

/// The welcome mail: once a registration completes, a side effect of its saga's move mails the new account's address.
/// The move keeps the rendered mail in the account database's side-effect outbox in its own transaction (so once: a
/// redelivered reply moves nothing and keeps nothing), and the account worker sends it from there after the commit,
/// waiting out a mail server that is down without holding up the registration (at least once on the wire, with its
/// Message-ID `welcome.<registration id>@<domain>`).
package enum Welcome {
    static let letter = Letter("welcome", kind: "welcome", values: ["name"])

    /// The effect mailing `letter` for a saga that the move completes (only a profile's reply completes one), dated as
    /// the move.
    package static func effect(mail: MailSettings) -> SagaEngine<SagaTransition>.Effect {
        { saga, _ in
            guard saga.stage == .completed else { return [] }
            return [try mail.message(letter, values: ["name": saga.name], locale: nil, to: saga.email, requestId: saga.registrationId,
                                     date: saga.updatedAt).effect(kind: letter.kind, about: saga.uid)]
        }
    }
}
