import Crypto
import Domain
import Kafka
import Foundation

/// A message that cannot be processed at all, addressed to its input topic's dead-letter topic with
/// the original key, bytes and headers, plus `dlq.*` headers saying why, where from and who gave up.
/// An original too large to be carried whole is carried as a prefix, with its size and SHA-256.
struct DeadLetter {
    var original: KafkaMessage
    var reason: DeadLetterReason
    var error: String
    var worker: String
    var attempts: Int

    init(original: KafkaMessage, reason: DeadLetterReason, error: String, worker: String, attempts: Int) {
        self.original = original
        self.reason = reason
        // The error may quote the message (an unknown type, a key): bounded like everything the letter carries.
        self.error = error.count > Self.errorCharacters ? error.prefix(Self.errorCharacters) + "…" : error
        self.worker = worker
        self.attempts = attempts
    }

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
        /// `true` when the letter carries only a prefix of the original's value (and maybe of its key).
        static let truncated = "dlq.truncated"
        /// The size of the original's value in bytes (on truncated letters).
        static let originalBytes = "dlq.original-bytes"
        /// The SHA-256 of the original's value, lower-case hex (on truncated letters).
        static let originalSHA256 = "dlq.original-sha256"
    }

    /// The longest `dlq.error`, in characters.
    static let errorCharacters = 1_000
    /// The most of the original's key and headers a truncated letter keeps, in bytes.
    static let truncatedKeyBytes = 1_024
    static let truncatedHeaderBytes = 8_192

    /// The letter as a message of at most `limit` bytes of key, value and headers: the original whole
    /// when it fits, else a prefix of its value (with a key and headers cut to bounded sizes), marked
    /// with `dlq.truncated`, `dlq.original-bytes` and `dlq.original-sha256`.
    func message(to topic: String, limit: Int) -> OutgoingMessage {
        let kept = original.headers.filter { !$0.key.hasPrefix("dlq.") }
        let whole = headers(kept)
        if Self.size(original.key, original.value, whole) <= limit {
            return OutgoingMessage(topic: topic, key: original.key, value: original.value, headers: whole)
        }
        let key = original.key.map { Array($0.prefix(Self.truncatedKeyBytes)) }
        let carried = Self.size(nil, [], kept) <= Self.truncatedHeaderBytes ? kept : []
        let marked = headers(carried) + [
            (Header.truncated, "true"), (Header.originalBytes, String(original.value.count)),
            (Header.originalSHA256, sha256Hex(original.value)),
        ].map(Self.header)
        let room = max(limit - Self.size(key, [], marked), 0)
        return OutgoingMessage(topic: topic, key: key, value: Array(original.value.prefix(room)), headers: marked)
    }

    /// `headers` followed by the `dlq.*` headers of this letter.
    private func headers(_ headers: [KafkaHeader]) -> [KafkaHeader] {
        let added: [(String, String)] = [
            (Header.reason, reason.rawValue), (Header.error, error), (Header.worker, worker), (Header.attempts, String(attempts)),
            (Header.topic, original.topic), (Header.partition, String(original.partition)),
            (Header.offset, String(original.offset)),
            (Header.time, Date().formatted(.iso8601)),
        ]
        return headers + added.map(Self.header)
    }

    private static func header(_ pair: (String, String)) -> KafkaHeader {
        KafkaHeader(key: pair.0, value: Array(pair.1.utf8))
    }

    /// The bytes a message of `key`, `value` and `headers` carries.
    private static func size(_ key: [UInt8]?, _ value: [UInt8], _ headers: [KafkaHeader]) -> Int {
        (key?.count ?? 0) + value.count + headers.reduce(0) { $0 + $1.key.utf8.count + ($1.value?.count ?? 0) }
    }
}
