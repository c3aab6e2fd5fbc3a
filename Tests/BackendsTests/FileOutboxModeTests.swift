@testable import Backends
import Courier
import Domain
import Foundation
@testable import TestSupport
import Testing

/// Outbox messages hold codes: `.eml` files are 0600 in a 0700 directory, and an outbox open to others is refused.
@Suite(.tags(.unit)) struct FileOutboxModeTests {
    let message = EmailMessage(from: "a@example.com", to: "b@example.com", subject: "Your code", text: "123456",
                               html: "<p>123456</p>", messageId: "m-1@example.com", date: Date(timeIntervalSince1970: 0))

    @Test func writesMessagesPrivately() throws {
        try withTemporaryDirectory { directory in
            let outbox = try FileOutbox(directory: directory + "/outbox")
            try outbox.send(message)
            #expect(try mode(of: outbox.directory) == 0o700)
            #expect(try mode(of: outbox.directory + "/m-1@example.com.eml") == 0o600)
        }
    }

    @Test func refusesAnOutboxOpenToOthers() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/outbox"
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
            let error = #expect(throws: StoreError.self) { try FileOutbox(directory: path) }
            #expect(error?.message.contains("\(path) has mode 0755") == true, "\(String(describing: error))")
            #expect(throws: StoreError.self) { try DataDirectory(directory) }
        }
    }

    private func mode(of path: String) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as! NSNumber).intValue
    }
}
