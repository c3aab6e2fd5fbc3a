import Courier
import Domain
import Support

/// A mailer that counts its sends by result (`registrar_mail_sends_total`).
package struct MeteredMailer: Mailer {
    private static let sends = MetricsRegistry.shared.counter(
        "registrar_mail_sends_total", "Emails handed to the mail store or server, by result (sent, transient, permanent)",
        labels: ["result"])

    let mailer: any Mailer

    package init(mailer: any Mailer) {
        self.mailer = mailer
        for result in ["sent", "transient", "permanent"] { Self.sends.declare(result) }
    }

    package func send(_ message: EmailMessage) throws(StoreError) {
        do {
            try mailer.send(message)
            Self.sends.increment("sent")
        } catch {
            Self.sends.increment(error.kind == .transient ? "transient" : "permanent")
            throw error
        }
    }
}
