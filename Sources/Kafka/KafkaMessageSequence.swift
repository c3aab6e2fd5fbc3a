/// The messages of a `KafkaConsumer`, in the order librdkafka delivers them.
public struct KafkaMessageSequence: AsyncSequence, Sendable {
    public typealias Element = KafkaMessage
    public typealias Failure = KafkaError

    let consumer: KafkaConsumer

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(consumer: consumer) }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let consumer: KafkaConsumer
        /// Messages that arrived together, handed out one by one without another trip to the poll queue.
        private var pending: [KafkaMessage] = []
        private var nextIndex = 0

        init(consumer: KafkaConsumer) { self.consumer = consumer }

        public mutating func next() async throws(KafkaError) -> KafkaMessage? {
            try await next(isolation: nil)
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async throws(KafkaError) -> KafkaMessage? {
            if nextIndex == pending.count {
                pending = try await consumer.nextMessages()
                nextIndex = 0
            }
            guard nextIndex < pending.count, !consumer.isClosing else { return nil }
            defer { nextIndex += 1 }
            return pending[nextIndex]
        }
    }
}
