import Domain
import Foundation
import Kafka
import Registration
@testable import TestSupport
import Testing

/// Every event the workers emit validates against the published JSON Schemas (a real validator:
/// Python's jsonschema, Draft 2020-12).
@Suite(.tags(.inProcess)) struct ContractTests {
    @Test func emittedEventsValidateAgainstTheSchemas() async throws {
        try await InProcessSystem.with { system in
            let photo = try await Fixtures.noiseJPEG(width: 100, height: 100)
            let requests = [try await system.request(email: "one@example.com", avatar: photo), try await system.request(email: "two@example.com"),
                            try await system.request(email: "three@example.com", avatar: Array("not an image".utf8)),
                            try await system.request(email: "ONE@example.com")]
            try await system.publish(requests)
            _ = try await system.waitForOutcomes(requests.map(\.registrationId))
            let events = try await system.allTopicMessages().filter { !$0.topic.hasSuffix(".dlq") }
            #expect(Set(events.compactMap { try? EventCodec.decode($0.value).type }).count >= 8)

            let (status, report) = try await ContractValidator.validate(events, in: system.directory)
            #expect(status == 0, "\(report.joined(separator: "\n"))")
            #expect(report.last?.hasSuffix(" 0 invalid") == true)
        }
    }
}
