@testable import Domain
import Foundation
@testable import TestSupport
import Testing

/// Each limit and list the schema publishes is the code's: compared both ways, so that the schema
/// states no limit the code does not have and the code has none the schema does not state.
@Suite(.tags(.unit)) struct ContractLimitTests {
    /// Where the schema states each limit (a JSON pointer), and the constant the code uses.
    static let limits: [String: Int] = [
        "/x-maxMessageBytes": ContractLimits.messageBytes,
        "/$defs/FlowId/maxLength": ContractLimits.idCharacters,
        "/$defs/Email/maxLength": ContractLimits.emailBytes,
        "/$defs/Name/x-maxCharacters": ContractLimits.nameCharacters,
        "/$defs/Locale/maxLength": ContractLimits.localeCharacters,
        "/$defs/SealedNewPassword/x-minCharacters": ContractLimits.minimumPasswordCharacters,
        "/$defs/SealedNewPassword/x-maxCharacters": ContractLimits.maximumPasswordCharacters,
        "/$defs/AvatarSource/x-inlineBytes": AvatarSource.inlineLimit,
        "/$defs/AvatarSource/x-maxBytes": ContractLimits.avatarBytes,
        "/$defs/AvatarSource/x-maxPixels": ContractLimits.avatarPixels,
        "/$defs/AvatarSource/x-maxSide": ContractLimits.avatarSide,
        "/$defs/AvatarStored/x-storedSide": ContractLimits.storedAvatarSide,
    ]

    /// Every upper bound (`maxLength`, `maximum`, `maxItems`, `maxProperties`) and every numeric
    /// `x-` annotation of `value`, by JSON pointer.
    static func statedLimits(in value: Any, at pointer: String = "") -> [String: Int] {
        var found: [String: Int] = [:]
        if let object = value as? [String: Any] {
            for (key, child) in object {
                let path = pointer + "/" + key
                if ["maxLength", "maximum", "maxItems", "maxProperties"].contains(key) || key.hasPrefix("x-"), let number = child as? Int {
                    found[path] = number
                } else {
                    found.merge(statedLimits(in: child, at: path)) { first, _ in first }
                }
            }
        } else if let array = value as? [Any] {
            for (index, child) in array.enumerated() { found.merge(statedLimits(in: child, at: "\(pointer)/\(index)")) { first, _ in first } }
        }
        return found
    }

    @Test func theSchemaStatesExactlyTheCodesLimits() throws {
        #expect(Self.statedLimits(in: try ContractSchema.document()) == Self.limits)
    }

    @Test func theRulesEnforceTheLimitsAtTheirValues() {
        let rules = RegistrationRules()
        /// A valid address of `bytes` bytes: a 64-byte local part and labels of at most 50 letters.
        func email(bytes: Int) -> String {
            let length = bytes - 64 - 1 - 4
            let labels = stride(from: 0, to: length, by: 51).map { String(repeating: "b", count: min(50, length - $0)) }
            return String(repeating: "a", count: 64) + "@" + labels.joined(separator: ".") + ".com"
        }
        #expect(rules.validate(email: email(bytes: ContractLimits.emailBytes)) == nil)
        #expect(rules.validate(email: email(bytes: ContractLimits.emailBytes + 1))?.reason == .emailTooLong)
        #expect(rules.validate(name: String(repeating: "n", count: ContractLimits.nameCharacters)) == nil)
        #expect(rules.validate(name: String(repeating: "n", count: ContractLimits.nameCharacters + 1))?.reason == .nameTooLong)
        for (length, reason) in [(ContractLimits.minimumPasswordCharacters - 1, ReasonCode.passwordTooShort),
                                 (ContractLimits.minimumPasswordCharacters, nil), (ContractLimits.maximumPasswordCharacters, nil),
                                 (ContractLimits.maximumPasswordCharacters + 1, .passwordTooLong)] {
            #expect(rules.validate(password: String(repeating: "p", count: length), email: "a@example.com")?.reason == reason)
        }
        #expect(RegistrationRequest.isWellFormed(String(repeating: "x", count: ContractLimits.idCharacters)))
        #expect(!RegistrationRequest.isWellFormed(String(repeating: "x", count: ContractLimits.idCharacters + 1)))
    }

    @Test func theDecoderRefusesMessagesOverTheLimitOnly() {
        let padded = { (count: Int) in [UInt8](repeating: 0x20, count: count - 2) + Array("{}".utf8) }
        #expect(throws: UndecodableMessage(.missingType, "no \"type\" field")) { try EventCodec.decode(padded(ContractLimits.messageBytes)) }
        #expect(throws: UndecodableMessage.self) { try EventCodec.decode(padded(ContractLimits.messageBytes + 1)) }
        do { _ = try EventCodec.decode(padded(ContractLimits.messageBytes + 1)) } catch { #expect(error.kind == .tooLarge) }
    }

    @Test func theSchemaListsEveryReasonCodeAndDeadLetterReason() throws {
        let definitions = try #require(try ContractSchema.document()["$defs"] as? [String: Any])
        let reasonCodes = (definitions["ReasonCode"] as? [String: Any])?["enum"] as? [String]
        #expect(reasonCodes == ReasonCode.allCases.map(\.rawValue))
        let deadLetterReasons = (definitions["DeadLetterReason"] as? [String: Any])?["enum"] as? [String]
        #expect(deadLetterReasons == DeadLetterReason.all.map(\.rawValue))
    }
}
