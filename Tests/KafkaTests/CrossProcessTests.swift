import Foundation
import Kafka
import KafkaCommands
@testable import TestSupport
import Testing

/// Producers, consumers and the broker in separate `kafka-tool` processes.
@Suite(.tags(.kafka, .serial)) struct CrossProcessTests {
    @Test func keysHeadersAndBytesArriveIntact() async throws {
        try await withBroker(topics: ["bytes": 1]) { broker in
            let key: [UInt8] = [0x00, 0xFF, 0x80, 0x41]
            let value: [UInt8] = [0xC3, 0x28, 0x00, 0x0A, 0xFE] + Array("text".utf8)
            let binaryHeader: [UInt8] = [0xFF, 0x00, 0x0D]
            let textHeader = Array("ünïcødé".utf8)
            try await produce(broker, topic: "bytes", value: value.base64, extra: [
                "--base64", "--key", key.base64, "--header", "bin=\(binaryHeader.base64)", "--header", "text=\(textHeader.base64)",
            ])
            let consumer = try broker.tool("consume", ["--topic", "bytes", "--from-beginning", "--count", "1"])
            let message = try await consumer.next("message")
            #expect(message.keyBytes == key)
            #expect(message.valueBytes == value)
            #expect(message.headers?.map(\.key) == ["bin", "text"])
            #expect(message.headers?.map(\.bytes) == [binaryHeader, textHeader])
            #expect(try await consumer.exitStatus() == 0)
        }
    }

    @Test func consumerKilledBeforeCommittingGetsTheMessageAgain() async throws {
        try await withBroker(topics: ["orders": 1]) { broker in
            try await produce(broker, topic: "orders", value: "m1")
            let group = ["--topic", "orders", "--group", "g", "--from-beginning", "--session-timeout-ms", "4000"]
            let first = try broker.tool("consume", group)
            let processed = try await first.next("message")
            first.signal(SIGKILL)
            _ = try await first.exitStatus()

            let second = try broker.tool("consume", group + ["--count", "1"])
            let again = try await second.next("message")
            #expect(again.position == processed.position)
            #expect(again.value == "m1")
            #expect(try await second.exitStatus() == 0)
        }
    }

    @Test func consumerKilledAfterCommittingDoesNotGetTheMessageAgain() async throws {
        try await withBroker(topics: ["orders": 1]) { broker in
            try await produce(broker, topic: "orders", value: "m1")
            let group = ["--topic", "orders", "--group", "g", "--from-beginning", "--session-timeout-ms", "4000"]
            let first = try broker.tool("consume", group + ["--commit-after-each"])
            #expect(try await first.next("message").value == "m1")
            _ = try await first.next("committed")
            first.signal(SIGKILL)
            _ = try await first.exitStatus()

            try await produce(broker, topic: "orders", value: "m2")
            let second = try broker.tool("consume", group + ["--count", "1"])
            #expect(try await second.next("message").value == "m2")
            #expect(try await second.exitStatus() == 0)
        }
    }

    @Test func cleanCloseLeavesTheGroupAtOnce() async throws {
        try await withBroker(topics: ["events": 1]) { broker in
            // A member that vanishes without LeaveGroup keeps its partition until its session expires;
            // on the mock broker the next member then waits about two session timeouts (expiry, then a
            // rebalance delay of session - 1 s). After a LeaveGroup it waits at most one rebalance delay.
            let session = Duration.seconds(10)
            let group = ["--topic", "events", "--group", "g", "--from-beginning", "--session-timeout-ms", "10000"]
            let first = try broker.tool("consume", group)
            _ = try await first.next { $0.event == "assigned" && $0.partitions?.isEmpty == false }
            first.signal(SIGTERM)
            #expect(try await first.exitStatus() == 0)
            #expect(first.events.contains { $0.event == "revoked" })

            let left = ContinuousClock.now
            let second = try broker.tool("consume", group)
            _ = try await second.next(within: session * 3) { $0.event == "assigned" && $0.partitions?.isEmpty == false }
            #expect(ContinuousClock.now - left < session * 1.5)
            try await produce(broker, topic: "events", value: "after-close")
            #expect(try await second.next("message").value == "after-close")
        }
    }

    @Test(arguments: ["cooperative-sticky", "range"])
    func twoConsumersSplitPartitionsAndRebalanceLosesNothingCommitted(strategy: String) async throws {
        try await withBroker(topics: ["split": 4]) { broker in
            // The mock broker holds a rebalance for (session timeout - 1 s) when a member joins a
            // running group, so keep the session short here.
            let group = ["--topic", "split", "--group", "g", "--from-beginning", "--commit-after-each",
                         "--session-timeout-ms", "6000", "--property", "partition.assignment.strategy=\(strategy)"]
            func produceBatch(_ prefix: String) async throws {
                let producer = try broker.tool("produce", ["--topic", "split", "--key-separator", ":"])
                for index in 0..<100 { producer.write(line: "\(prefix)\(index):\(prefix)\(index)") }
                producer.closeInput()
                #expect(try await producer.exitStatus() == 0)
            }
            try await produceBatch("a")
            let first = try broker.tool("consume", group)
            try await waitUntil("the first consumer to read the first batch") {
                first.events.filter { $0.event == "message" }.count >= 100
            }
            let second = try broker.tool("consume", group)
            _ = try await second.next { $0.event == "assigned" && $0.partitions?.isEmpty == false }
            try await produceBatch("b")

            let expected = Set((0..<100).flatMap { ["a\($0)", "b\($0)"] })
            func values(_ process: ToolProcess) -> [String] {
                process.events.filter { $0.event == "message" }.compactMap(\.value)
            }
            try await waitUntil("every message to be consumed") {
                Set(values(first) + values(second)).isSuperset(of: expected)
            }
            let firstValues = values(first)
            let secondValues = values(second)
            #expect(Set(firstValues + secondValues) == expected)
            #expect(secondValues.contains { $0.hasPrefix("b") }, "the second consumer got partitions")
            #expect(firstValues.contains { $0.hasPrefix("b") }, "the first consumer kept partitions")

            // A message committed by one consumer is never delivered to the other.
            func committed(_ process: ToolProcess) -> Set<String> {
                Set(process.events.filter { $0.event == "committed" }.map {
                    "\($0.topic ?? "")/\($0.partition ?? -1)/\(($0.offset ?? 0) - 1)"
                })
            }
            func positions(_ process: ToolProcess) -> Set<String> {
                Set(process.events.filter { $0.event == "message" }.map(\.position))
            }
            #expect(committed(first).isDisjoint(with: positions(second)))
            #expect(committed(second).isDisjoint(with: positions(first)))
            // Assignment events are incremental with the cooperative protocol: replay them.
            func currentAssignment(_ process: ToolProcess) -> Set<Int32> {
                process.events.reduce(into: Set<Int32>()) { owned, event in
                    let partitions = Set(event.partitions?.map(\.partition) ?? [])
                    switch event.event {
                    case "assigned": owned = strategy == "range" ? partitions : owned.union(partitions)
                    case "revoked", "lost": owned.subtract(partitions)
                    default: break
                    }
                }
            }
            #expect(currentAssignment(first).isDisjoint(with: currentAssignment(second)))
            #expect(currentAssignment(first).union(currentAssignment(second)) == [0, 1, 2, 3])
        }
    }

    @Test func everyAcknowledgedMessageSurvivesABrokerGoingDownAndUp() async throws {
        try await withBroker(brokers: 3, topics: ["durable": 6]) { broker in
            for partition in Int32(0)..<6 {
                try broker.control.send(.partitionLeader(topic: "durable", partition: partition, broker: partition / 2 + 1))
            }
            // Reconnect to the returning broker within a second (the default backs off up to 10 s).
            let producer = try broker.tool("produce", ["--topic", "durable", "--key-separator", ":", "--delivery-timeout-ms", "60000",
                                                       "--property", "reconnect.backoff.max.ms=1000"])
            func write(_ range: Range<Int>) {
                for index in range { producer.write(line: "k\(index):v\(index)") }
            }
            func delivered() -> Int { producer.events.filter { $0.event == "delivered" }.count }
            write(0..<30)
            try await waitUntil("the first deliveries") { delivered() == 30 }

            try broker.control.send(.brokerDown(1))
            write(30..<60)
            // Partitions led by brokers 2 and 3 keep taking messages.
            try await waitUntil("deliveries while broker 1 is down") { delivered() > 30 }
            #expect(delivered() < 60, "messages for broker 1's partitions wait for it")
            try broker.control.send(.brokerUp(1))
            write(60..<90)
            producer.closeInput()
            // Longer than the delivery timeout: a message stuck past it fails the count below, not this wait.
            #expect(try await producer.exitStatus(within: .seconds(90)) == 0)
            let acknowledged = producer.events.filter { $0.event == "delivered" }
            #expect(acknowledged.count == 90)

            let consumer = try broker.tool("consume", ["--topic", "durable", "--from-beginning", "--count", "\(acknowledged.count)"])
            #expect(try await consumer.exitStatus() == 0)
            let consumed = consumer.events.filter { $0.event == "message" }
            #expect(Set(consumed.map(\.position)) == Set(acknowledged.map(\.position)))
            #expect(Set(consumed.compactMap(\.value)) == Set((0..<90).map { "v\($0)" }))
        }
    }

    @Test func relayCopiesMessagesWithTheirHeaders() async throws {
        try await withBroker(topics: ["in": 2, "out": 2]) { broker in
            let relay = try broker.tool("relay", ["--from", "in", "--to", "out"])
            let producer = try broker.tool("produce", ["--topic", "in", "--key-separator", ":", "--header", "sent-at=123"])
            for index in 0..<10 { producer.write(line: "k\(index):v\(index)") }
            producer.closeInput()
            #expect(try await producer.exitStatus() == 0)
            let consumer = try broker.tool("consume", ["--topic", "out", "--from-beginning", "--count", "10"])
            #expect(try await consumer.exitStatus() == 0)
            let copies = consumer.events.filter { $0.event == "message" }
            #expect(Set(copies.compactMap(\.value)) == Set((0..<10).map { "v\($0)" }))
            #expect(copies.allSatisfy { $0.key == "k" + ($0.value ?? "").dropFirst() })
            #expect(copies.allSatisfy { $0.headers?.first { $0.key == "sent-at" }?.value == "123" })
            relay.signal(SIGTERM)
            #expect(try await relay.exitStatus() == 0)
        }
    }

    @Test func controlSocketReportsBadCommands() async throws {
        try await withBroker(topics: [:]) { broker in
            #expect(throws: BrokerControlError.self) { try broker.control.send(line: "broker-down one") }
            #expect(throws: BrokerControlError.self) { try broker.control.send(.brokerDown(42)) }
            try broker.control.send(.createTopic(name: "made", partitions: 2, replicationFactor: 1))
            try broker.control.send(.roundTripTime(broker: 1, milliseconds: 5))
        }
    }
}
