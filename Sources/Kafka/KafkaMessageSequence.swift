/// The messages of a `KafkaConsumer`, in the order librdkafka delivers them.
public struct KafkaMessageSequence: AsyncSequence, Sendable {
    public typealias Element = KafkaMessage
    public typealias Failure = KafkaError

    let consumer: KafkaConsumer

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(consumer: consumer) }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let consumer: KafkaConsumer

        public mutating func next() async throws(KafkaError) -> KafkaMessage? {
            try await consumer.nextMessage()
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async throws(KafkaError) -> KafkaMessage? {
            try await consumer.nextMessage()
        }
    }
}
