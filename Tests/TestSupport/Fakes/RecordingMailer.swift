import Courier
import Domain
import Synchronization

/// A mailer that keeps what it is given, and fails while its fault is armed.
public final class RecordingMailer: Mailer {
    private let sent = Mutex<[EmailMessage]>([])
    /// Raised by `send`, before the message is kept.
    public let sends = Fault()

    public init() {}

    public func send(_ message: EmailMessage) throws(StoreError) {
        try sends.check()
        sent.withLock { $0.append(message) }
    }

    /// The messages delivered, in order.
    public var messages: [EmailMessage] { sent.withLock { $0 } }
}
