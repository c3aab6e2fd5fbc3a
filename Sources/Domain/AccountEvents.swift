import Foundation

/// An event about an account for services outside Registrar, on `account.events` (``Announcements/account``): which
/// account (its uid), when, and what changed — never an email, a name, a hash or any other secret, so that any service
/// may keep it. Each is kept in the outbox of the store whose change it announces, in the change's transaction
/// (``Outbox``), and published from there by the worker owning that store, signed with its role's event key: at least
/// once (`eventId` tells a repetition), in order per account (the message key is the uid).
public struct AccountEvent: Sendable, Equatable, Codable {
    /// The types of `account.events`.
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// A registration completed: the account exists and can sign in.
        case accountRegistered = "AccountRegistered"
        /// The account's mailbox is proven for the first time (at its registration, or an older account's first proof).
        case emailVerified = "EmailVerified"
        /// The profile's fields named in `changed` changed.
        case profileUpdated = "ProfileUpdated"
        /// An email change completed: the account and its profile have the new address.
        case emailChanged = "EmailChanged"
        /// The password was changed, reset or dropped (every session ended with it).
        case passwordChanged = "PasswordChanged"
        /// A deletion completed: nothing of the account is left.
        case accountDeleted = "AccountDeleted"
        /// An operator read the account (`registrar operator find`).
        case accountInspected = "AccountInspected"
        /// An operator cleared the account's failure counts and locks.
        case accountUnlocked = "AccountUnlocked"
        /// An operator disabled the account: no sign-in, no refresh, no change; every session ended.
        case accountDisabled = "AccountDisabled"
        /// An operator enabled the disabled account again.
        case accountEnabled = "AccountEnabled"
        /// An operator dropped the password and ended every session; a reset code is mailed to the owner.
        case passwordResetForced = "PasswordResetForced"
        /// An operator began the account's deletion; `AccountDeleted` follows once nothing of it is left.
        case accountDeletionOrdered = "AccountDeletionOrdered"
    }

    /// A field of an account or profile, by name: what an event says changed, never its value.
    public enum Field: String, Sendable, Codable, CaseIterable, Comparable {
        case email, password, name, profileImage, isMapLocationEnabled

        public static func < (lhs: Field, rhs: Field) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    public var type: Kind
    public var version: Int
    /// Unique per event, the same for each publication of one: a consumer drops an id it has seen.
    public var eventId: String
    public var uid: String
    public var occurredAt: Date
    /// The fields the change concerns, sorted (empty for a registration, a first proof, a deletion).
    public var changed: [Field]
    /// Who acted, for an operator's action: `operator:<name>` (``operatorActor(_:)``); absent for the owner's own changes.
    public var actor: String?

    public init(_ type: Kind, uid: String, at date: Date, changed: [Field] = [], actor: String? = nil,
                eventId: String = UUID().uuidString.lowercased()) {
        self.type = type
        version = Event.version
        self.eventId = eventId
        self.uid = uid
        occurredAt = date
        self.changed = changed.sorted()
        self.actor = actor
    }

    /// The actor of an action of the operator named `name`.
    public static func operatorActor(_ name: String) -> String { "operator:" + name }

    /// The message's value: JSON, keys sorted, the time in ISO 8601 (UTC).
    public var encoded: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        // Encoding strings, a date and an integer cannot fail.
        return Array(try! encoder.encode(self))
    }

    /// The event in `bytes`, or nil when they are not one of this version.
    public init?(decoding bytes: [UInt8]) {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let event = try? decoder.decode(AccountEvent.self, from: Data(bytes)), event.version == Event.version else { return nil }
        self = event
    }

    /// The event announcing that the profile of `uid` went from `old` to `new` at `date`, naming the fields that
    /// differ; nil when none does. Every write of an existing profile (an email change's, the profile update's)
    /// announces itself so.
    public static func profileUpdated(uid: String, from old: Profile, to new: Profile, at date: Date) -> AccountEvent? {
        let fields: [(Field, Bool)] = [(.name, old.name != new.name), (.email, old.email != new.email),
                                       (.profileImage, old.profileImage != new.profileImage),
                                       (.isMapLocationEnabled, old.isMapLocationEnabled != new.isMapLocationEnabled)]
        let changed = fields.filter(\.1).map(\.0)
        return changed.isEmpty ? nil : AccountEvent(.profileUpdated, uid: uid, at: date, changed: changed)
    }

    /// The message that publishes it from an outbox: on `account.events`, keyed by the uid.
    public var message: OutboxMessage {
        OutboxMessage(topic: Announcements.account.topic, key: uid, type: type.rawValue, payload: encoded)
    }
}
