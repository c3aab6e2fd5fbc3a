import Foundation

/// The failure outcome of a public request that could not be processed at all (dead-lettered), so
/// that its client gets an answer instead of waiting forever. Pure: the worker publishes it.
public enum RequestFailure {
    /// The failure event answering the request with flow id `id` that arrived on `topic` (reason
    /// `request_invalid`, `message` saying why), or nil when `topic` takes no public requests or `id`
    /// is not a well-formed flow id (nothing could be keyed by it).
    public static func outcome(ofRequestOn topic: String, id: String, message: String) -> Event? {
        guard RegistrationRequest.isWellFormed(id), let flow = Flow.requested(on: topic) else { return nil }
        return flow.refusal(id, .requestInvalid, message)
    }

    /// The request types a public request topic takes (none for other topics).
    public static func requestKinds(on topic: String) -> [Event.Kind] { Flow.requested(on: topic)?.requests.types ?? [] }

    /// The flow id a request body names, read without decoding the event: the string its flow's `idField`
    /// names (`registrationId` on `registration.requests`, `requestId` on the others) of a JSON object. Nil
    /// when the body is larger than twice the message limit (it is not parsed at all), not a JSON
    /// object, or has no such string.
    public static func id(in body: [UInt8], on topic: String) -> String? {
        guard body.count <= 2 * ContractLimits.messageBytes,
              let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { return nil }
        return Flow.requested(on: topic).flatMap { object[$0.idField] as? String }
    }
}
