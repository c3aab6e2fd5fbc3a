import Foundation
@testable import KafkaCommands
@testable import TestSupport
import Testing

/// The relay that lets librdkafka 2.0.2 talk to Tansu: what it rewrites, and Tansu reached through it, never directly.
@Suite(.tags(.kafka, .serial)) struct HandshakeRelayTests {
    /// An ApiVersions v3 answer as Tansu writes it: two API keys, then its four feature fields, default-valued.
    static let tansuAnswer: [UInt8] = [0, 0, 3] + [0, 0, 0, 0, 0, 11, 0] + [0, 18, 0, 0, 0, 3, 0] + [0, 0, 0, 0]
        + [4, 0, 1, 1, 1, 8, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 2, 1, 1, 3, 1, 0]

    @Test func anApiVersionsAnswerLosesOnlyItsTaggedFields() {
        let expected: [UInt8] = [0, 0, 3] + [0, 0, 0, 0, 0, 11, 0] + [0, 18, 0, 0, 0, 3, 0] + [0, 0, 0, 0] + [0]
        #expect(ApiVersionsAnswer.withoutTaggedFields(Self.tansuAnswer) == expected)
        // An API key's own tagged fields go too.
        let keyTags: [UInt8] = [0, 0, 2] + [0, 1, 0, 0, 0, 12, 1, 5, 2, 0xAB, 0xCD] + [0, 0, 0, 0] + [0]
        #expect(ApiVersionsAnswer.withoutTaggedFields(keyTags) == [0, 0, 2, 0, 1, 0, 0, 0, 12, 0, 0, 0, 0, 0, 0])
    }

    @Test func aMalformedAnswerIsLeftAsItIs() {
        #expect(ApiVersionsAnswer.withoutTaggedFields(Array(Self.tansuAnswer.dropLast())) == nil, "cut short")
        #expect(ApiVersionsAnswer.withoutTaggedFields(Self.tansuAnswer + [0]) == nil, "trailing bytes")
        #expect(ApiVersionsAnswer.withoutTaggedFields([0, 0, 0]) == nil, "a null array")
    }

    @Test(.enabled(if: installedProgram("kcat") != nil, "kcat is not installed"))
    func librdkafkaReachesTansuThroughTheRelayOnly() async throws {
        let kcat = try #require(installedProgram("kcat"))
        let tansu = try TansuServer()
        // Directly, librdkafka 2.0.2 cannot read the broker's ApiVersions answer.
        let direct = try await run(kcat, ["-L", "-m", "3", "-b", "127.0.0.1:\(tansu.brokerPort)"], timeout: .seconds(20))
        #expect(direct.status != 0)
        // Through `kafka-tool handshake-relay`, the same client reads the metadata.
        let relay = try ToolProcess(["handshake-relay", "--broker", "127.0.0.1:\(tansu.brokerPort)"])
        let address = try #require(try await relay.next("text").value)
        let listed = try await run(kcat, ["-L", "-m", "10", "-b", address], timeout: .seconds(20))
        #expect(listed.status == 0 && listed.output.contains("1 brokers"), "\(listed.output)")
        relay.signal(SIGTERM)
        #expect(try await relay.exitStatus() == 0)
        // Through the relay Tansu advertises, messages go both ways.
        #expect(try await run(kcat, ["-P", "-b", tansu.bootstrapServers, "-t", "relayed", "-k", "k"], input: "through\n").status == 0)
        let consumed = try await run(kcat, ["-C", "-b", tansu.bootstrapServers, "-t", "relayed", "-e", "-q", "-f", "%k=%s\n"])
        #expect(consumed.output.contains("k=through"), "\(consumed.output)")
    }
}
