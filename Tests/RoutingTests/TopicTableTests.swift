import Domain
@testable import TestSupport
import Testing

/// The topic table (`Topic.all`) against `contract/asyncapi.yaml`: the same topics, dead letters
/// included, with the same partitions, retention and cleanup policy.
@Suite(.tags(.unit)) struct TopicTableTests {
    @Test func theChannelsAreTheTopicsOfTheTable() async throws {
        let documented = Set(try await AsyncAPIDocument.channels().keys)
        let table = Set(Topic.all.map(\.name))
        #expect(documented.subtracting(table).sorted() == [], "documented but not in the table")
        #expect(table.subtracting(documented).sorted() == [], "in the table but not documented")
        #expect(Topic.all.count == table.count, "each topic once")
    }

    @Test func eachChannelsBindingIsItsTopicsRow() async throws {
        let channels = try await AsyncAPIDocument.channels()
        for spec in Topic.all {
            let channel = try #require(channels[spec.name], "\(spec.name) is documented")
            #expect(channel.partitions == spec.partitions, "\(spec.name) partitions")
            #expect(channel.retentionMilliseconds == spec.retention.milliseconds, "\(spec.name) retention.ms")
            #expect(channel.cleanupPolicy == [spec.cleanupPolicy.rawValue], "\(spec.name) cleanup.policy")
        }
    }

    @Test func everyInputTopicHasADeadLetterTopicAndOnlyInputsDo() {
        let deadLetters = Set(Topic.all.map(\.name).filter { $0.hasSuffix(".dlq") })
        #expect(deadLetters == Set(Topic.inputs.map(Topic.deadLetters(of:))))
    }
}
