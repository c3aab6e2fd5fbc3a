import Courier
import Domain
import Support

/// The production mailer: hands each message to an SMTP server (relay or submission service) over
/// libcurl, with STARTTLS or implicit TLS and AUTH as configured.
///
/// A message moves through courier states: *queued* while its request waits in Kafka, *sent* once
/// the server accepted it (logged as `mail sent`), or *abandoned* when it is refused for good (a 5xx
/// reply: logged, and the step fails so the request is dead-lettered with the server's reason). A
/// transient failure (4xx, no connection, timeout) is logged as `mail deferred` and thrown as
/// transient, so the worker retries with back-off and dead-letters the request once retries run out.
///
/// SMTP cannot ask a server whether it already has a Message-ID, so a send repeated after a crash
/// between the server's acceptance and the caller's commit delivers a second copy, with the same
/// Message-ID (which mail clients use to recognise it).
public struct SMTPMailer: Mailer {
    public let configuration: SMTPConfiguration
    private let logger: Logger

    public init(_ configuration: SMTPConfiguration, logger: Logger = Logger(component: "smtp-mailer")) {
        self.configuration = configuration
        self.logger = logger
    }

    public func send(_ message: EmailMessage) throws(StoreError) {
        // Only the Message-ID and server are logged: no addresses, no content (codes), no credentials.
        let log = logger.with(["message_id": message.messageId, "server": configuration.description])
        do throws(StoreError) {
            let sender = try Self.address(configuration.envelopeSender ?? message.from)
            try SMTPTransfer(configuration: configuration).send(Array(message.rendered.utf8), from: sender,
                                                                 to: try Self.address(message.to))
            log.info("mail sent")
        } catch {
            log.warning(error.kind == .transient ? "mail deferred" : "mail abandoned", ["error": error.message])
            throw StoreError(error.kind, "mail \(message.messageId) \(error.kind == .transient ? "deferred" : "abandoned"): \(error.message)")
        }
    }

    /// Throws a transient error when the server cannot be reached or defers (4xx), so that a worker started during
    /// its outage waits; a server that answers, even refusing `NOOP` for good, is there.
    public func probe() throws(StoreError) {
        do throws(StoreError) {
            try SMTPTransfer(configuration: configuration).probe()
        } catch where error.kind == .permanent {
            return
        }
    }

    /// The bare address of `mailbox` (`Name <local@domain>` or `local@domain`), for the SMTP envelope.
    static func address(_ mailbox: String) throws(StoreError) -> String {
        var address = Substring(mailbox)
        if let open = mailbox.lastIndex(of: "<"), let close = mailbox.lastIndex(of: ">"), open < close {
            address = mailbox[mailbox.index(after: open)..<close]
        }
        address = address.drop(while: \.isWhitespace)
        while address.last?.isWhitespace == true { address = address.dropLast() }
        guard address.contains("@"), !address.contains(where: { $0.isWhitespace || "<>\r\n".contains($0) }) else {
            throw StoreError(.permanent, "not an email address: \(mailbox)")
        }
        return String(address)
    }
}
