import Foundation
import Kafka
import Testing

@Test func timingScratch() async throws {
    let cluster = try MockCluster(brokers: 1)
    try cluster.createTopic("t", partitions: 1, replicationFactor: 1)
    var configuration = KafkaConfiguration(bootstrapServers: cluster.bootstrapServers, clientID: "test")
    configuration.enableIdempotence = ProcessInfo.processInfo.environment["IDEMP"] != nil
    configuration.properties["debug"] = ProcessInfo.processInfo.environment["KDEBUG"]
    let clock = ContinuousClock()
    var t = clock.now
    let producer = try KafkaProducer(configuration: configuration)
    print("create", clock.now - t); t = clock.now
    _ = try await producer.send(OutgoingMessage(topic: "t", value: [1]))
    print("send1", clock.now - t); t = clock.now
    _ = try await producer.send(OutgoingMessage(topic: "t", value: [1]))
    print("send2", clock.now - t); t = clock.now
    await producer.close()
    print("close", clock.now - t); t = clock.now
    let consumer = try KafkaConsumer(configuration: configuration, assignment: [TopicPartitionOffset(topic: "t", partition: 0, offset: .beginning)])
    var it = consumer.messages.makeAsyncIterator()
    _ = try await it.next()
    print("consume1", clock.now - t); t = clock.now
    _ = try await it.next()
    print("consume2", clock.now - t); t = clock.now
    consumer.close()
    print("consumer close", clock.now - t); t = clock.now
}
