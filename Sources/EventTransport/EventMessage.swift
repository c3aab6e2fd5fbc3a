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
        let key = Array(event.key.utf8)
        let value = EventCodec.encode(event)
        let signature = signer?.headers(topic: event.topic, key: key, type: event.type, payload: value) ?? []
        self.init(topic: event.topic, key: key, value: value, headers: [
            KafkaHeader(key: EventHeader.type, value: Array(event.type.utf8)),
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
