import Foundation
import Kafka
import Testing

/// The library used in-process against an in-process mock cluster.
@Suite struct ClientTests {
    @Test func producedMessageIsConsumedIntact() async throws {
        let cluster = try MockCluster(brokers: 1)
        try cluster.createTopic("t", partitions: 2, replicationFactor: 1)
        var configuration = KafkaConfiguration(bootstrapServers: cluster.bootstrapServers, clientID: "test")
        let producer = try KafkaProducer(configuration: configuration)
        let bytes: [UInt8] = [0, 0xFF, 0xFE, 10, 13]
        let report = try await producer.send(OutgoingMessage(
            topic: "t", key: "k1", value: bytes,
            headers: [KafkaHeader(key: "h", value: [0xC3, 0x28]), KafkaHeader(key: "n", value: nil)]))
        #expect(report.error == nil)
        #expect(report.offset == 0)
        await producer.close()

        configuration.groupID = "g"
        let consumer = try KafkaConsumer(configuration: configuration, subscribingTo: ["t"])
        var iterator = consumer.messages.makeAsyncIterator()
        let message = try #require(try await iterator.next())
        #expect(message.keyString == "k1")
        #expect(message.value == bytes)
        #expect(message.headers == [KafkaHeader(key: "h", value: [0xC3, 0x28]), KafkaHeader(key: "n", value: nil)])
        try consumer.commit(message)
        try consumer.commitSync()
        consumer.close()
        #expect(try await iterator.next() == nil)
    }

    @Test func invalidPropertyFailsWithLibrdkafkaText() throws {
        var configuration = KafkaConfiguration(bootstrapServers: "127.0.0.1:1", clientID: "test")
        configuration.properties["no.such.property"] = "1"
        #expect {
            try KafkaProducer(configuration: configuration)
        } throws: { error in
            "\(error)".contains("No such configuration property")
        }
    }

    @Test func unreachableBrokerFailsWithinBoundedTime() async throws {
        var configuration = KafkaConfiguration(bootstrapServers: "127.0.0.1:1", clientID: "test")
        configuration.deliveryTimeout = .seconds(2)
        let producer = try KafkaProducer(configuration: configuration)
        #expect { try producer.partitionCount(topic: "t", timeout: .seconds(1)) } throws: { error in
            print(error); return true
        }
        await #expect { _ = try await producer.send(OutgoingMessage(topic: "t", value: [1])) } throws: { error in
            print(error); return true
        }
    }
}
