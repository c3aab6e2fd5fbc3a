import Domain
import Kafka

/// The standard header names of every event message (part of the contract, `contract/asyncapi.yaml`).
public enum EventHeader {
    /// The event's type, e.g. `RegistrationRequested`: lets a reader route without decoding the body.
    public static let type = "type"
    /// Who published the event: a worker's name, or the client (`registrar-cli`, a test).
    public static let producer = "producer"
}

extension OutgoingMessage {
    /// `event` as a message to its topic, keyed by its flow id, with the standard headers naming
    /// its type and `producer`, and signed by `signer` when given (a worker; clients sign nothing).
    public init(_ event: Event, producer: String, signer: EventSigner? = nil) {
        self.init(topic: event.topic, key: event.key, type: event.type, value: EventCodec.encode(event), producer: producer, signer: signer)
    }

    /// A message of a store's outbox (an announcement), with the standard headers, signed by `signer` (its worker).
    public init(_ message: OutboxMessage, producer: String, signer: EventSigner) {
        self.init(topic: message.topic, key: message.key, type: message.type, value: message.payload, producer: producer, signer: signer)
    }

    private init(topic: String, key: String, type: String, value: [UInt8], producer: String, signer: EventSigner?) {
        let key = Array(key.utf8)
        let signature = signer?.headers(topic: topic, key: key, type: type, payload: value) ?? []
        self.init(topic: topic, key: key, value: value, headers: [
            KafkaHeader(key: EventHeader.type, value: Array(type.utf8)),
            KafkaHeader(key: EventHeader.producer, value: Array(producer.utf8)),
        ] + signature)
    }
}

extension KafkaMessage {
    /// The event this message carries, or why it carries none.
    public func event() throws(UndecodableMessage) -> Event {
        try EventCodec.decode(value)
    }
}
