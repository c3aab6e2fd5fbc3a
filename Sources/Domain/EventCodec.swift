import Foundation

/// Why a message could not be decoded. Such messages go to the dead-letter topic with this reason.
public struct UndecodableMessage: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, CaseIterable { case notJSON = "not_json", missingType = "missing_type",
                                          unknownType = "unknown_type", unsupportedVersion = "unsupported_version",
                                          invalidFields = "invalid_fields", tooLarge = "too_large" }
    public var kind: Kind
    public var detail: String

    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    public var description: String { "\(kind.rawValue): \(detail)" }
}

/// Turns events into the bytes on the wire and back.
public enum EventCodec {
    /// JSON with the event's fields plus `type` and `version`, keys sorted.
    public static func encode(_ event: Event) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let tagged = Tagged(type: event.type, payload: event.payload)
        // Encoding plain Codable structs of strings, numbers and booleans cannot fail.
        return Array(try! encoder.encode(tagged))
    }

    /// The `type` of every event this build reads and writes.
    public static var types: Set<String> { Set(decoders.keys) }

    /// Decodes bytes into an event, or says precisely why it cannot. A field the event does not have
    /// (at any depth) and a null field are refused, as the schemas' `additionalProperties: false` says.
    public static func decode(_ bytes: [UInt8]) throws(UndecodableMessage) -> Event {
        guard bytes.count <= ContractLimits.messageBytes else {
            throw UndecodableMessage(.tooLarge, "\(bytes.count) bytes, limit \(ContractLimits.messageBytes)")
        }
        let data = Data(bytes)
        let decoder = JSONDecoder()
        guard let fields = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let header = try? decoder.decode(Header.self, from: data) else {
            throw UndecodableMessage(.notJSON, "not a JSON object")
        }
        guard let type = header.type else {
            throw UndecodableMessage(.missingType, fields["type"] == nil ? "no \"type\" field" : "\"type\" is not a string")
        }
        guard let decodePayload = decoders[type] else { throw UndecodableMessage(.unknownType, "unknown type \"\(type)\"") }
        guard header.version == Event.version else {
            let found = header.version.map { "\"version\" is \($0)" }
                ?? header.versionText.map { "\"version\" is the string \"\($0.prefix(40))\"" }
                ?? (fields["version"] == nil ? "no \"version\" field" : "\"version\" is not an integer")
            throw UndecodableMessage(.unsupportedVersion, "\(type): \(found), expected the integer \(Event.version)")
        }
        let event: Event
        do {
            event = try decodePayload(decoder, data)
        } catch let error as DecodingError {
            throw UndecodableMessage(.invalidFields, "\(type): \(describe(error))")
        } catch {
            throw UndecodableMessage(.invalidFields, "\(type): \(error)")
        }
        // The fields an event has are those it writes: encoded again, it shows every field it read.
        if let written = try? JSONSerialization.jsonObject(with: Data(encode(event))) as? [String: Any],
           let extra = UndefinedField.first(in: fields, notIn: written) {
            throw UndecodableMessage(.invalidFields, extra.isNull ? "\(type): field \"\(extra.path)\" is null; leave an absent field out"
                                                                  : "\(type): unknown field \"\(extra.path)\"")
        }
        return event
    }

    /// `type` and `version` when they have the right JSON types, read without failing when they do not.
    private struct Header: Decodable {
        var type: String?
        var version: Int?
        var versionText: String?

        private enum CodingKeys: String, CodingKey { case type, version }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            type = try? container.decode(String.self, forKey: .type)
            version = try? container.decode(Int.self, forKey: .version)
            versionText = version == nil ? try? container.decode(String.self, forKey: .version) : nil
        }
    }

    private struct Tagged: Encodable {
        var type: String
        var payload: any Encodable

        private enum CodingKeys: String, CodingKey { case type, version }

        func encode(to encoder: any Encoder) throws {
            try payload.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(type, forKey: .type)
            try container.encode(Event.version, forKey: .version)
        }
    }

    private typealias PayloadDecoder = @Sendable (JSONDecoder, Data) throws -> Event

    private static func entry<T: Decodable & SendableMetatype>(_ make: @escaping @Sendable (T) -> Event) -> PayloadDecoder {
        { decoder, data in make(try decoder.decode(T.self, from: data)) }
    }

    private static let decoders: [String: PayloadDecoder] = [
        "RegistrationRequested": entry(Event.registrationRequested),
        "StoreAvatar": entry(Event.storeAvatar),
        "DeleteAvatar": entry(Event.deleteAvatar),
        "AvatarStored": entry(Event.avatarStored),
        "AvatarRejected": entry(Event.avatarRejected),
        "AvatarDeleted": entry(Event.avatarDeleted),
        "AvatarWaiting": entry(Event.avatarWaiting),
        "WriteProfile": entry(Event.writeProfile),
        "DeleteProfile": entry(Event.deleteProfile),
        "ProfileWritten": entry(Event.profileWritten),
        "ProfileRejected": entry(Event.profileRejected),
        "ProfileDeleted": entry(Event.profileDeleted),
        "ProfileWaiting": entry(Event.profileWaiting),
        "RegistrationCompleted": entry(Event.registrationCompleted),
        "RegistrationFailed": entry(Event.registrationFailed),
        "CodeRequested": entry(Event.codeRequested),
        "CodeSent": entry(Event.codeSent),
        "CodeRefused": entry(Event.codeRefused),
        "TokenRequested": entry(Event.tokenRequested),
        "TokenIssued": entry(Event.tokenIssued),
        "TokenRefused": entry(Event.tokenRefused),
        "ProfileRequested": entry(Event.profileRequested),
        "ProfileAnswered": entry(Event.profileAnswered),
        "PasswordChangeRequested": entry(Event.passwordChangeRequested),
        "PasswordResetRequested": entry(Event.passwordResetRequested),
        "EmailChangeRequested": entry(Event.emailChangeRequested),
        "UpdateProfileEmail": entry(Event.updateProfileEmail),
        "ProfileEmailUpdated": entry(Event.profileEmailUpdated),
        "ProfileEmailRejected": entry(Event.profileEmailRejected),
        "ProfileEmailWaiting": entry(Event.profileEmailWaiting),
        "AccountChangeCompleted": entry(Event.accountChangeCompleted),
        "AccountChangeFailed": entry(Event.accountChangeFailed),
        "SignOutRequested": entry(Event.signOutRequested),
        "SignedOut": entry(Event.signedOut),
        "SessionsRequested": entry(Event.sessionsRequested),
        "SessionsAnswered": entry(Event.sessionsAnswered),
        "ExportRequested": entry(Event.exportRequested),
        "ExportAnswered": entry(Event.exportAnswered),
        "AccountDeletionRequested": entry(Event.accountDeletionRequested),
        "EraseAvatar": entry(Event.eraseAvatar),
        "AvatarErased": entry(Event.avatarErased),
        "EraseProfile": entry(Event.eraseProfile),
        "ProfileErased": entry(Event.profileErased),
        "AccountDeleted": entry(Event.accountDeleted),
        "ProfileUpdateRequested": entry(Event.profileUpdateRequested),
        "StoreNewAvatar": entry(Event.storeNewAvatar),
        "NewAvatarStored": entry(Event.newAvatarStored),
        "NewAvatarRejected": entry(Event.newAvatarRejected),
        "NewAvatarWaiting": entry(Event.newAvatarWaiting),
        "DiscardAvatar": entry(Event.discardAvatar),
        "AvatarDiscarded": entry(Event.avatarDiscarded),
        "UpdateProfile": entry(Event.updateProfile),
        "ProfileUpdateApplied": entry(Event.profileUpdateApplied),
        "ProfileUpdateRejected": entry(Event.profileUpdateRejected),
        "ProfileUpdateWaiting": entry(Event.profileUpdateWaiting),
        "ProfileUpdated": entry(Event.profileUpdated),
        "OperatorRequested": entry(Event.operatorRequested),
        "OperatorAnswered": entry(Event.operatorAnswered),
        "OperatorRefused": entry(Event.operatorRefused),
    ]

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map(\.stringValue).joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = path(context)
            return "missing field \"\(parent.isEmpty ? key.stringValue : parent + "." + key.stringValue)\""
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "field \"\(path(context))\": \(context.debugDescription)"
        case .dataCorrupted(let context):
            return "field \"\(path(context))\": \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}

extension Event {
    /// The event's own fields, without the type tag.
    var payload: any FlowMessage {
        switch self {
        case .registrationRequested(let e): e
        case .storeAvatar(let e): e
        case .deleteAvatar(let e): e
        case .avatarStored(let e): e
        case .avatarRejected(let e): e
        case .avatarDeleted(let e): e
        case .avatarWaiting(let e): e
        case .writeProfile(let e): e
        case .deleteProfile(let e): e
        case .profileWritten(let e): e
        case .profileRejected(let e): e
        case .profileDeleted(let e): e
        case .profileWaiting(let e): e
        case .registrationCompleted(let e): e
        case .registrationFailed(let e): e
        case .codeRequested(let e): e
        case .codeSent(let e): e
        case .codeRefused(let e): e
        case .tokenRequested(let e): e
        case .tokenIssued(let e): e
        case .tokenRefused(let e): e
        case .profileRequested(let e): e
        case .profileAnswered(let e): e
        case .passwordChangeRequested(let e): e
        case .passwordResetRequested(let e): e
        case .emailChangeRequested(let e): e
        case .updateProfileEmail(let e): e
        case .profileEmailUpdated(let e): e
        case .profileEmailRejected(let e): e
        case .profileEmailWaiting(let e): e
        case .accountChangeCompleted(let e): e
        case .accountChangeFailed(let e): e
        case .signOutRequested(let e): e
        case .signedOut(let e): e
        case .sessionsRequested(let e): e
        case .sessionsAnswered(let e): e
        case .exportRequested(let e): e
        case .exportAnswered(let e): e
        case .accountDeletionRequested(let e): e
        case .eraseAvatar(let e): e
        case .avatarErased(let e): e
        case .eraseProfile(let e): e
        case .profileErased(let e): e
        case .accountDeleted(let e): e
        case .profileUpdateRequested(let e): e
        case .storeNewAvatar(let e): e
        case .newAvatarStored(let e): e
        case .newAvatarRejected(let e): e
        case .newAvatarWaiting(let e): e
        case .discardAvatar(let e): e
        case .avatarDiscarded(let e): e
        case .updateProfile(let e): e
        case .profileUpdateApplied(let e): e
        case .profileUpdateRejected(let e): e
        case .profileUpdateWaiting(let e): e
        case .profileUpdated(let e): e
        case .operatorRequested(let e): e
        case .operatorAnswered(let e): e
        case .operatorRefused(let e): e
        }
    }
}
