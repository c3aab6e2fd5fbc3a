import Crypto
import Foundation
import Kafka
import Domain
import EventTransport
import Registration
import WorkerRuntime

/// The client side of a registration, shared by `registrar register` and `registrar demo`:
/// seal the password, stage a large avatar, publish the request, wait for the outcome.
struct RegistrationClient {
    var kafka: KafkaConfiguration
    var publicKey: SealingPublicKey
    var objects: any ObjectStore

    /// The outcome of one registration.
    enum Outcome {
        case completed(RegistrationCompleted)
        case failed(RegistrationFailed)
    }

    struct TimedOut: Error, CustomStringConvertible {
        var registrationId: String
        var description: String {
            "no outcome for registration \(registrationId) yet; it may still finish: run `registrar status \(registrationId)`"
        }
    }

    func register(registrationId: String, email: String, password: String, name: String, avatar: [UInt8]?,
                  isMapLocationEnabled: Bool, timeout: Duration) async throws -> Outcome {
        let request = RegistrationRequested(
            registrationId: registrationId, email: email, name: name,
            sealedPassword: Data(publicKey.seal(Array(password.utf8))).base64EncodedString(),
            avatar: try avatar.map { try source(for: $0, registrationId: registrationId) },
            isMapLocationEnabled: isMapLocationEnabled)
        let event = Event.registrationRequested(request)
        let waiter = try OutcomeWaiter(topic: Topic.registrationOutcomes, configuration: kafka)
        let producer = try KafkaProducer(configuration: kafka)
        _ = try await producer.send(OutgoingMessage(event, producer: "registrar-cli"))
        await producer.close()
        guard let message = try await waiter.wait(forKey: registrationId, timeout: timeout) else {
            throw TimedOut(registrationId: registrationId)
        }
        switch try EventCodec.decode(message.value) {
        case .registrationCompleted(let completed): return .completed(completed)
        case .registrationFailed(let failed): return .failed(failed)
        case let other: throw UnexpectedEvent(type: other.type, worker: "registrar register")
        }
    }

    /// Small avatars travel inline; larger ones are staged in the object store (claim check).
    private func source(for avatar: [UInt8], registrationId: String) throws -> AvatarSource {
        guard avatar.count > AvatarSource.inlineLimit else { return .inline(Data(avatar).base64EncodedString()) }
        let key = AvatarStep.stagingKey(registrationId: registrationId)
        try objects.put(avatar, key: key, contentType: "application/octet-stream")
        return .staged(key: key, sha256: sha256Hex(avatar), size: avatar.count)
    }
}
