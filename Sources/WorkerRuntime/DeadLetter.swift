import Domain
import Kafka
import Foundation

/// A message that cannot be processed at all, addressed to its input topic's dead-letter topic with
/// the original key, bytes and headers, plus `dlq.*` headers saying why, where from and who gave up.
struct DeadLetter {
    var original: KafkaMessage
    var reason: DeadLetterReason
    var error: String
    var worker: String
    var attempts: Int

    /// Header names; part of the public contract (see contract/asyncapi.yaml).
    enum Header {
        static let reason = "dlq.reason"
        static let error = "dlq.error"
        static let worker = "dlq.worker"
        static let attempts = "dlq.attempts"
        static let topic = "dlq.topic"
        static let partition = "dlq.partition"
        static let offset = "dlq.offset"
        static let time = "dlq.time"
    }

    func message(to topic: String) -> OutgoingMessage {
        let added: [(String, String)] = [
            (Header.reason, reason.rawValue), (Header.error, error), (Header.worker, worker), (Header.attempts, String(attempts)),
            (Header.topic, original.topic), (Header.partition, String(original.partition)),
            (Header.offset, String(original.offset)),
            (Header.time, Date().formatted(.iso8601)),
        ]
        return OutgoingMessage(
            topic: topic, key: original.key, value: original.value,
            headers: original.headers.filter { !$0.key.hasPrefix("dlq.") }
                + added.map { KafkaHeader(key: $0.0, value: Array($0.1.utf8)) })
    }
}
