import Backends
import Courier

/// The mailer an installation is configured with: its SMTP server by URL, else the data directory's file outbox.
extension BackendOptions {
    /// The mailer of code and notification emails.
    public func mailer() throws -> any Mailer {
        try mail.map { try SMTPMailer(SMTPConfiguration(url: $0)) } ?? EmbeddedBackends(dataDirectory).mailer()
    }
}

extension EmbeddedBackends {
    /// The file outbox: one `.eml` file per message in `<data>/outbox`.
    public func mailer() throws -> any Mailer {
        try FileOutbox(directory: try layout().outbox)
    }
}
