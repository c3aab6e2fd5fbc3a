import Domain
import Foundation
import Kafka
import Testing

extension TestSystem {
    /// A dead letter planted by hand on `registration.requests.dlq`: a valid registration request for `email`, whose
    /// `dlq.topic` header names `headerTopic` and `dlq.error` says `error`; its position `topic:partition:offset`.
    func plantDeadLetter(email: String, headerTopic: String = Topic.registrationRequests,
                         error: String = "step failed") async throws -> (RegistrationRequested, String) {
        let planted = try await request(email: email)
        let headers = [("dlq.reason", "step_failed"), ("dlq.topic", headerTopic), ("dlq.offset", "0"), ("dlq.worker", "account-worker"),
                       ("dlq.error", error)]
        try await client.publish(OutgoingMessage(
            topic: Topic.deadLetters(of: Topic.registrationRequests), key: planted.registrationId,
            value: EventCodec.encode(.registrationRequested(planted)), headers: headers.map { KafkaHeader(key: $0.0, value: Array($0.1.utf8)) }))
        let letter = try #require(try await allTopicMessages().first {
            $0.topic == Topic.deadLetters(of: Topic.registrationRequests) && $0.keyString == planted.registrationId
        })
        return (planted, "\(letter.topic):\(letter.partition):\(letter.offset)")
    }

    /// How many messages keyed `key` are on `topic`.
    func messageCount(on topic: String, key: String) async throws -> Int {
        try await allTopicMessages().filter { $0.topic == topic && $0.keyString == key }.count
    }
}
