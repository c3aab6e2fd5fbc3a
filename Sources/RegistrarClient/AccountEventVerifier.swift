import Crypto
import Domain
import EventTransport
import Kafka

/// How a service outside Registrar takes an account event (`account.events`): only when it is signed by the role that
/// publishes its type (``Announcements/account``) with one of the public event keys it is configured with, and keyed by
/// its uid. `contract/account_events_example.py` makes the same checks.
extension EventVerifier {
    /// Verifies account events with the public event keys of the announcing roles in `directory`
    /// (`events-<role>.ed25519.pub`, and a rotated-out `events-<role>.previous.pub`), re-read when a rotation replaces one.
    public static func accountEvents(keysDirectory directory: String) throws -> EventVerifier {
        let keys = EventKeyDirectory(directory)
        let roles = Announcements.account.roles
        var reading: [WorkerRole: @Sendable () -> [SigningPublicKey]] = [:]
        for role in roles { reading[role] = try keys.reloadingPublicKeys(of: role, creatingMissing: false) }
        return EventVerifier(roles: roles) { [reading] role in reading[role]?() ?? [] }
    }

    /// The account event `message` carries, or why it is not one to take: not read on `account.events`, not an
    /// account event, keyed by another uid, or not signed by the role that publishes its type.
    public func accountEvent(_ message: KafkaMessage) throws(RefusedAccountEvent) -> AccountEvent {
        let announcements = Announcements.account
        guard message.topic == announcements.topic else { throw RefusedAccountEvent("read on \(message.topic), not \(announcements.topic)") }
        guard let event = AccountEvent(decoding: message.value) else { throw RefusedAccountEvent("not an account event of version \(Event.version)") }
        guard message.key == Array(event.uid.utf8) else { throw RefusedAccountEvent("the message key is not the event's uid") }
        let producers: Set<WorkerRole> = announcements.producers[event.type].map { [$0] } ?? []
        do {
            try verify(message, type: event.type.rawValue, from: producers)
        } catch {
            throw RefusedAccountEvent(error.description)
        }
        return event
    }
}

/// Why a message read on `account.events` is not taken.
public struct RefusedAccountEvent: Error, Sendable, CustomStringConvertible {
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}
