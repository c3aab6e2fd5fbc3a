import Foundation
import Kafka
@testable import TestSupport
import Testing

/// Bad settings and missing brokers fail clearly and quickly, in the library and in the tools.
@Suite(.tags(.kafka, .serial)) struct FailureTests {
    @Test func invalidPropertyFailsAtConstructionWithLibrdkafkaText() throws {
        var configuration = KafkaConfiguration(bootstrapServers: "127.0.0.1:1", clientID: "test")
        configuration.properties["no.such.property"] = "1"
        #expect { try KafkaProducer(configuration: configuration) } throws: { error in
            (error as? KafkaError)?.message.contains("No such configuration property") == true
        }
        configuration.properties = ["session.timeout.ms": "soon"]
        configuration.groupID = "g"
        #expect { try KafkaConsumer(configuration: configuration, subscribingTo: ["t"]) } throws: { error in
            (error as? KafkaError)?.message.contains("session.timeout.ms") == true
        }
    }

    @Test func invalidPropertyMakesTheToolFail() async throws {
        let tool = try ToolProcess(["produce", "--bootstrap", "127.0.0.1:1", "--topic", "t", "--value", "v",
                                    "--property", "acks=lots"])
        #expect(try await tool.exitStatus(within: .seconds(30)) == 1)
        // Standard error is read on a thread of its own, which may still be draining the pipe.
        try await waitUntil("the tool to name the property", within: .seconds(10)) { tool.standardError.contains("acks") }
    }

    @Test func unreachableBrokerFailsWithinBoundedTime() async throws {
        var configuration = KafkaConfiguration(bootstrapServers: "127.0.0.1:1", clientID: "test")
        configuration.deliveryTimeout = .seconds(2)
        let producer = try KafkaProducer(configuration: configuration)
        let start = ContinuousClock.now
        #expect { try producer.partitionCount(topic: "t", timeout: .seconds(1)) } throws: { error in
            [KafkaError.Code.transport, KafkaError.Code.timedOut].contains((error as? KafkaError)?.code)
        }
        await #expect { _ = try await producer.send(OutgoingMessage(topic: "t", value: [1])) } throws: { error in
            (error as? KafkaError)?.code == KafkaError.Code.messageTimedOut
        }
        // The configured timeouts are 1 s and 2 s; the bound tells a bounded failure from a hang, with room
        // for a loaded 2-core machine (the whole suite runs in parallel), where 11 s has been seen.
        #expect(ContinuousClock.now - start < .seconds(30))
        await producer.close()
    }

    /// librdkafka 2.0.2's own watermark query ignores its timeout while the partition's leader is down
    /// (confluentinc/librdkafka#2588, fixed in 2.3.0): it retried for as long as the broker stayed away, and a chaos
    /// run whose snapshot read met the local broker SIGKILLed (and started again elsewhere) waited for good.
    @Test func watermarksOfAPartitionWhoseLeaderIsDownFailWithinBoundedTime() async throws {
        let cluster = try MockCluster(brokers: 1)
        try cluster.createTopic("w", partitions: 1)
        let consumer = try KafkaConsumer(configuration: KafkaConfiguration(bootstrapServers: cluster.bootstrapServers, clientID: "test"),
                                         assignment: [])
        // The leader is known (and the client connected) before it goes down.
        #expect(try consumer.watermarks(topic: "w", partition: 0, timeout: .seconds(10)) == (0, 0))
        try cluster.setBrokerDown(1)
        let answer = await outcome(within: .seconds(60)) { try consumer.watermarks(topic: "w", partition: 0, timeout: .seconds(2)) }
        let failure = try #require(answer, "the query came back (a 2 s timeout; 60 s tells a bounded failure from a hang)")
        #expect(throws: KafkaError.self) { try failure.get() }
        try cluster.setBrokerUp(1)
        #expect(try consumer.watermarks(topic: "w", partition: 0, timeout: .seconds(30)) == (0, 0))
        consumer.close()
    }

    /// What `call` returned or threw, run on a thread of its own, or nil when it had not returned within `limit`
    /// (the thread is then left blocked).
    private func outcome<T: Sendable>(within limit: Duration, of call: @escaping @Sendable () throws -> T) async -> Result<T, any Error>? {
        let (results, result) = AsyncStream.makeStream(of: Result<T, any Error>.self)
        Thread { result.yield(Result { try call() }) }.start()
        return await withTaskGroup(of: Result<T, any Error>?.self) { group in
            group.addTask { await results.first { _ in true } }
            group.addTask { try? await Task.sleep(for: limit); return nil }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    @Test func unreachableBrokerMakesTheToolsFailWithinBoundedTime() async throws {
        let start = ContinuousClock.now
        let producer = try ToolProcess(["produce", "--bootstrap", "127.0.0.1:1", "--topic", "t", "--value", "v",
                                        "--delivery-timeout-ms", "2000"])
        let consumer = try ToolProcess(["consume", "--bootstrap", "127.0.0.1:1", "--topic", "t", "--group", "g",
                                        "--connect-timeout-ms", "2000"])
        let failure = try await producer.next("failed")
        #expect(failure.code == "_MSG_TIMED_OUT")
        #expect(try await producer.exitStatus(within: .seconds(30)) == 1)
        #expect(try await consumer.exitStatus(within: .seconds(30)) == 1)
        try await waitUntil("the consumer to name the error", within: .seconds(10)) {
            consumer.standardError.contains("_TRANSPORT") || consumer.standardError.contains("_TIMED_OUT")
        }
        #expect(ContinuousClock.now - start < .seconds(30), "2 s timeouts; the bound only tells failure from a hang")
    }
}
