import Backends
import Domain
import EventTransport
import Foundation
import Kafka
import RegistrarClient

/// `account.events` read back as a service outside Registrar takes it: every message keyed by an account's uid, each
/// checked by the client helper (`EventVerifier.accountEvent`) with the public event keys of the system's key directory.
extension TestSystem {
    /// The system's key directory (the public event keys a consumer is given).
    var keysDirectory: String { EmbeddedBackends(directory).keysDirectory }

    /// Every message on `account.events` keyed by `uid`, in the order of its partition.
    func accountEventMessages(of uid: String) async throws -> [KafkaMessage] {
        try await TopicSnapshot.read([Topic.accountEvents], configuration: kafka).filter { $0.keyString == uid }.sorted { $0.offset < $1.offset }
    }

    /// The account events of `uid` on the topic, each verified (a message that is not genuine fails the test), once
    /// `count` distinct events (by event id) are there, within `timeout`. Repeated publications of one event are kept.
    func accountEvents(of uid: String, count: Int, timeout: Duration = .seconds(60)) async throws -> [AccountEvent] {
        let verifier = try EventVerifier.accountEvents(keysDirectory: keysDirectory)
        let deadline = ContinuousClock.now + timeout
        while true {
            let events = try await accountEventMessages(of: uid).map { message throws(RefusedAccountEvent) in try verifier.accountEvent(message) }
            if Set(events.map(\.eventId)).count >= count { return events }
            guard ContinuousClock.now < deadline else {
                throw HarnessError("\(Set(events.map(\.eventId)).count) of \(count) account events of \(uid) within \(timeout): \(events.map(\.type))")
            }
            try await Task.sleep(for: .milliseconds(200))
        }
    }
}
