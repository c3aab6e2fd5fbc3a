import Foundation
@testable import TestSupport
import Testing

/// A client nobody here wrote (kcat) talks to the mock broker and to our tools.
@Suite(.tags(.kafka, .serial)) struct KcatTests {
    static let kcat = installedProgram("kcat")

    @Test(.enabled(if: kcat != nil, "kcat is not installed"))
    func kcatProducesAndConsumes() async throws {
        try await withBroker(topics: ["interop": 1]) { broker in
            let kcat = try #require(Self.kcat)
            let produced = try await run(
                kcat, ["-P", "-b", broker.bootstrapServers, "-t", "interop", "-k", "kc-key", "-H", "origin=kcat"],
                input: "from kcat\n")
            #expect(produced.status == 0)
            let consumer = try broker.tool("consume", ["--topic", "interop", "--from-beginning", "--count", "1"])
            let message = try await consumer.next("message")
            #expect(message.key == "kc-key")
            #expect(message.value == "from kcat")
            #expect(message.headers?.first?.key == "origin" && message.headers?.first?.value == "kcat")
            #expect(try await consumer.exitStatus() == 0)

            try await produce(broker, topic: "interop", value: "from kafka-tool",
                              extra: ["--key", "ours", "--header", "origin=kafka-tool"])
            let consumed = try await run(
                kcat, ["-C", "-b", broker.bootstrapServers, "-t", "interop", "-o", "beginning", "-e", "-q",
                       "-f", "%k|%s|%h\n"])
            #expect(consumed.status == 0)
            #expect(consumed.output.contains("ours|from kafka-tool|origin=kafka-tool"))
        }
    }
}
