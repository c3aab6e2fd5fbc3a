@testable import EventTransport
import Foundation
import Kafka
import Support
@testable import TestSupport
import Testing

/// `TopicSnapshot`: a window of each partition read to the end it had, or a partial answer that says which
/// partitions it could not finish in time; and the one line a command prints when no broker can be reached.
@Suite(.tags(.kafka)) struct TopicSnapshotTests {
    /// A mock cluster with `counts[p]` messages on partition `p` of topic `t`.
    private static func cluster(_ counts: [Int]) async throws -> (MockCluster, KafkaConfiguration) {
        let cluster = try MockCluster(brokers: 1)
        try cluster.createTopic("t", partitions: Int32(counts.count))
        let configuration = KafkaConfiguration(bootstrapServers: cluster.bootstrapServers, clientID: "snapshot-test")
        let producer = try KafkaProducer(configuration: configuration)
        for (partition, count) in counts.enumerated() {
            for index in 0..<count {
                _ = try await producer.send(OutgoingMessage(topic: "t", key: "k", value: Array("\(partition)-\(index)".utf8),
                                                            partition: Int32(partition)))
            }
        }
        await producer.close()
        return (cluster, configuration)
    }

    @Test func aWindowReadsTheLastMessagesOfEachPartitionToTheirEnd() async throws {
        let (cluster, configuration) = try await Self.cluster([5, 2, 0])
        let snapshot = try await TopicSnapshot.take(["t"], configuration: configuration, window: .last(3))
        #expect(snapshot.isComplete)
        let values = Set(snapshot.messages.map { String(decoding: $0.value, as: UTF8.self) })
        #expect(values == ["0-2", "0-3", "0-4", "1-0", "1-1"])
        #expect(snapshot.ends == [TopicPartition(topic: "t", partition: 0): 5, TopicPartition(topic: "t", partition: 1): 2,
                                  TopicPartition(topic: "t", partition: 2): 0])
        let all = try await TopicSnapshot.take(["t"], configuration: configuration) { $0.partition == 0 }
        #expect(all.messages.count == 5 && all.isComplete)
        _ = cluster
    }

    @Test func aReadCutShortByItsTimeLimitNamesThePartitionsItDidNotFinish() async throws {
        let (cluster, configuration) = try await Self.cluster([3, 3])
        // Every fetch fails for a while (the broker answers REQUEST_TIMED_OUT): nothing can be read in 2 s.
        cluster.pushRequestErrors(apiKey: 1, errors: Array(repeating: 7, count: 500))
        let started = ContinuousClock.now
        let snapshot = try await TopicSnapshot.take(["t"], configuration: configuration, timeout: .seconds(2))
        // Without the limit the read would last as long as the errors (500 fetches failing, half a second apart); the
        // bound is loose for a test process running dozens of others at once.
        #expect(ContinuousClock.now - started < .seconds(30), "the time limit holds")
        #expect(!snapshot.isComplete)
        #expect(snapshot.unfinished == [TopicPartition(topic: "t", partition: 0), TopicPartition(topic: "t", partition: 1)])
        cluster.clearRequestErrors(apiKey: 1)
    }

    @Test func aBrokerThatCannotBeReachedIsSaidInOneLine() async throws {
        let parsed = try ParsedArguments(["--bootstrap", "127.0.0.1:1"],
                                         spec: CommandSpec(name: "t", summary: "", options: ConnectionOptions.commandSpecs), environment: [:])
        let connection = try ConnectionOptions(parsed, quietUnlessVerbose: true)
        do {
            _ = try await connection.explainingBrokerTrouble {
                try await TopicSnapshot.take(["t"], configuration: connection.kafka(clientID: "snapshot-test"), timeout: .seconds(3))
            }
            Issue.record("read a broker that is not there")
        } catch let failure as CommandFailure {
            #expect(failure.message == "cannot reach Kafka at 127.0.0.1:1: connection refused")
        }
    }

    @Test(arguments: [
        ("[thrd:127.0.0.1:1/bootstrap]: 127.0.0.1:1/bootstrap: Connect to ipv4#127.0.0.1:1 failed: Connection refused (after 0ms in state CONNECT)",
         "connection refused"),
        ("nohost:9092/bootstrap: Failed to resolve 'nohost:9092': Name or service not known (after 3ms in state CONNECT)",
         "failed to resolve 'nohost:9092': Name or service not known"),
        ("1/1 brokers are down", nil),
    ] as [(String, String?)])
    func theReasonIsTakenFromLibrdkafkasLine(line: String, reason: String?) {
        #expect(BrokerTrouble.reason(in: line) == reason)
    }
}
