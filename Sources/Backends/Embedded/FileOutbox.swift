import Courier
import Domain
import Support

/// The embedded mailer: each message is one RFC 5322 file `<directory>/<Message-ID>.eml`
/// (e.g. under `<data>/outbox`), written atomically. Sending a message again replaces its file, so
/// a redelivered send leaves one copy. Messages hold codes: files are 0600 in a 0700 directory.
public struct FileOutbox: Mailer {
    public let directory: String

    /// An outbox in `directory`, which is created (0700) if needed and refused if open to others.
    public init(directory: String) throws(StoreError) {
        self.directory = directory
        try FileSystem.createPrivateDirectory(directory)
    }

    public func send(_ message: EmailMessage) throws(StoreError) {
        guard !message.messageId.contains("/"), !message.messageId.hasPrefix(".") else {
            throw StoreError(.permanent, "Message-ID \(message.messageId) cannot name a file")
        }
        try FileSystem.replace("\(directory)/\(message.messageId).eml", with: Array(message.rendered.utf8), mode: PrivateFiles.fileMode)
    }
}
