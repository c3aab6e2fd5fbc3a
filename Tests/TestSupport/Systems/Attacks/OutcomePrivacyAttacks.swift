import Domain
import EventTransport
import Foundation
import Kafka
import RegistrarClient
import Testing
import WorkerRuntime

/// Attack 7 of issue 12 (`OutcomePrivacyTests`, `AdversarialTests`).
extension Attacks {
    /// A client that reads the public outcome topics learns no one's uid, email, name or profile image.
    /// Checked on the raw bytes of every message there after a registration, sign-ins by password and by a
    /// code that registers, and a password change; the requester's client still opens what is theirs.
    /// (Every outcome on the topics is read, those of other tests sharing the installation too.)
    static func theOutcomeTopicsCarryNoPersonalData(on system: some TestSystem) async throws {
        let (privatePerson, codedPerson) = (Attacks.unique("private.person"), Attacks.unique("coded.person"))
        let victim = try await system.victim(privatePerson + "@example.com", password: "private password by the quiet river")
        let (signedIn, tokens) = try await system.signIn(.password, email: victim.email, secret: victim.password)
        guard case .tokenIssued = signedIn else { Issue.record("no sign-in: \(signedIn)"); return }
        #expect(tokens?.uid == victim.uid, "the requester opens the uid")
        let code = try await system.code(for: codedPerson + "@example.com", .register)
        let (_, coded) = try await system.signIn(.email, email: codedPerson + "@example.com", secret: code)
        let codedUid = try #require(coded).uid
        let change = system.client.passwordChange(email: victim.email, password: victim.password, newPassword: "another harbour lantern phrase")
        guard case .accountChangeCompleted = try await system.send(.passwordChangeRequested(change)) else {
            Issue.record("the password change failed")
            return
        }

        let outcomes = try await TopicSnapshot.read(Topic.outcomes, configuration: system.kafka)
        #expect(Set(outcomes.map(\.topic)).isSuperset(of: [Topic.registrationOutcomes, Topic.authOutcomes, Topic.accountOutcomes]))
        let personal = [victim.uid, victim.email, victim.profile.name, victim.profile.profileImage, victim.imageId, codedUid,
                        codedPerson, privatePerson]
        for message in outcomes {
            let text = String(decoding: message.value + (message.key ?? []), as: UTF8.self)
            for datum in personal {
                #expect(!text.localizedCaseInsensitiveContains(datum), "\(message.topic) carries \(datum): \(text)")
            }
        }
    }
}
