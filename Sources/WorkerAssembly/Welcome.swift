import Courier
import Domain
import Foundation
import Registration

/// The welcome mail: once a registration completes, a hook of its saga mails the new account's address, after the
/// commit of the step that completed it (again if that step's reply is redelivered: the same Message-ID).
package enum Welcome {
    static let letter = Letter("welcome", kind: "welcome", values: ["name"])

    /// The hook mailing `letter` through `mailer` when a saga has just completed on its profile's reply.
    package static func hook(mailer: any Mailer, mail: MailSettings, clock: @escaping @Sendable () -> Date) -> SagaEngine<SagaTransition>.Hook {
        { saga, event in
            // A deleted account's registration keeps no address: its ProfileWritten redelivered mails no one.
            guard saga.stage == .completed, event?.kind == .profileWritten, !saga.email.isEmpty else { return }
            try mailer.send(mail.message(letter, values: ["name": saga.name], locale: nil, to: saga.email,
                                         requestId: saga.registrationId, date: clock()))
        }
    }
}
