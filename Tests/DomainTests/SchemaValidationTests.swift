@testable import Domain
import Foundation
@testable import TestSupport
import Testing

/// The events the code writes are exactly what the published schema allows: every event type has
/// a schema, a sample of each validates (one jsonschema process for the whole batch), and a field
/// the schema does not define fails both the schema and the decoder, at every depth.
@Suite(.tags(.unit)) struct SchemaValidationTests {
    @Test func everyEventTypeHasASchemaAndASample() throws {
        let schema = try ContractSchema.document()
        let listed = (schema["oneOf"] as? [[String: String]] ?? []).compactMap { $0["$ref"]?.replacingOccurrences(of: "#/$defs/", with: "") }
        let definitions = try #require(schema["$defs"] as? [String: Any])
        #expect(Set(listed) == EventCodec.types)
        for type in EventCodec.types {
            let properties = (definitions[type] as? [String: Any])?["properties"] as? [String: Any]
            #expect((properties?["type"] as? [String: String])?["const"] == type, "no schema for \(type)")
        }
        #expect(Set(EventSamples.all.map(\.type)) == EventCodec.types, "a sample of every event type")
    }

    @Test func samplesValidateAndUnknownOrNullFieldsOrBadIdsDoNot() throws {
        let valid = EventSamples.all.map(EventCodec.encode)
        let unknown = valid.flatMap(EventSamples.withUnknownField)
        #expect(unknown.contains { $0.path == "profile.unexpected" } && unknown.contains { $0.path == "avatar.staged.unexpected" })
        let null = Array(#"{"avatar":null,"#.utf8) + EventCodec.encode(EventSamples.all[2]).dropFirst()
        // An id that breaks the pattern is echoed only by the failure that says so.
        let badIds = [Event.registrationFailed(RegistrationFailed(registrationId: "../not an id", reason: .emailTaken, message: "taken")),
                      .codeRefused(CodeRefused(requestId: "", reason: .codeRateLimited, message: "wait", retryAfter: 1))].map(EventCodec.encode)
        let invalid = unknown.map(\.body) + [null] + badIds
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("schema-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }

        let (status, report) = try ContractSchema.validate(valid + invalid, in: directory)

        let total = valid.count + invalid.count
        #expect(status == 1)
        #expect(report.last == "\(total) events checked, \(invalid.count) invalid", "\(report.joined(separator: "\n"))")
        let invalidLines = Set(report.dropLast().compactMap { $0.split(separator: " ").dropFirst().first.flatMap { Int($0) } })
        #expect(invalidLines == Set((valid.count + 1)...total), "\(report.joined(separator: "\n"))")
        let reasons = ["unexpected", "None is not valid", "does not match", "is too short"]
        #expect(report.dropLast().allSatisfy { line in reasons.contains { line.contains($0) } },
                "only the unknown field, the null or the id is refused: \(report.joined(separator: "\n"))")
    }

    @Test func theDecoderRefusesAnUnknownFieldNamingIt() throws {
        for sample in EventSamples.all {
            for (path, body) in EventSamples.withUnknownField(EventCodec.encode(sample)) {
                #expect(throws: UndecodableMessage(.invalidFields, "\(sample.type): unknown field \"\(path)\"")) {
                    try EventCodec.decode(body)
                }
            }
        }
    }

    @Test func theDecoderRefusesANullField() {
        let body = Array(#"{"avatar":null,"#.utf8) + EventCodec.encode(EventSamples.all[2]).dropFirst()
        #expect(throws: UndecodableMessage(.invalidFields, "RegistrationRequested: field \"avatar\" is null; leave an absent field out")) {
            try EventCodec.decode(body)
        }
    }
}
