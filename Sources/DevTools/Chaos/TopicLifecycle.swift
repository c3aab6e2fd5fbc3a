import Crypto
import Domain
import EventTransport
import Installation
import Kafka
import RegistrarClient
import Support
import Synchronization

/// The owners of the workload's topic registrations that are then updated or deleted, as a client of the topics does:
/// once its registration completed, the owner signs in (password grant) and then publishes its `ProfileUpdateRequested`
/// (the new avatar inline) or `AccountDeletionRequested` (re-authenticated by its password), sealed with its access token,
/// each through the run's publisher (published again after a broker restart); the answers are read from the outcome topics.
final class TopicLifecycle: Sendable {
    /// One owner's requests and the answers they got.
    struct Owner: Sendable {
        var registrationId: String
        var email: String
        var action: ChaosWorkload.LifecycleAction
        /// Its registration's outcome, its sign-in's answer.
        var registration: Event?
        var signIn: Event?
        /// Every distinct answer to its update or deletion (one, unless a request was answered twice).
        var answers: Set<[UInt8]> = []

        var signInId: String { "signin-" + registrationId }
        var requestId: String { (action == .delete ? "delete-" : "update-") + registrationId }

        /// Whether it is settled: its registration failed, its sign-in was refused or its request answered.
        var settled: Bool {
            switch (registration, signIn) {
            case (.registrationCompleted?, .tokenIssued?): !answers.isEmpty
            case (.registrationCompleted?, nil), (nil, _): false
            default: true
            }
        }
    }

    private let sealer: RequestSealer
    private let photo: [UInt8]
    private let owners: Mutex<[Owner]>
    /// Whether every owner's request was published (or never will be: its registration failed, its sign-in was refused).
    private let published = Mutex(false)

    init(_ workload: ChaosWorkload, publicKey: SealingPublicKey, photo: [UInt8]) {
        sealer = RequestSealer(publicKey: publicKey)
        self.photo = photo
        owners = Mutex(workload.topicRegistrations.compactMap { registration in
            workload.lifecycle[registration.request.registrationId].map {
                Owner(registrationId: registration.request.registrationId, email: registration.request.email, action: $0)
            }
        })
    }

    var allPublished: Bool { published.withLock { $0 } }
    /// The owners as they are now.
    var current: [Owner] { owners.withLock { $0 } }

    /// Reads the outcome topics every second and publishes each owner's next request as its answers come, until every
    /// owner is settled or `deadline` passes.
    func run(_ installation: LocalInstallation, publisher: ChaosPublisher, until deadline: AppClient.Deadline, watch: WaitWatch) async throws {
        let topics = [Topic.registrationOutcomes, Topic.authOutcomes, Topic.accountOutcomes]
        while !current.allSatisfy(\.settled), ContinuousClock.now < deadline.current {
            if let messages = try? await ChaosReport.read(topics, installation, watch: watch) {
                var answers: [String: [(Event, [UInt8])]] = [:]
                for message in messages {
                    if let event = try? EventCodec.decode(message.value) { answers[event.key, default: []].append((event, message.value)) }
                }
                for message in try advance(with: answers) { try await publisher.publish(message) }
                if current.allSatisfy({ $0.settled || $0.signIn != nil }) { published.withLock { $0 = true } }
            }
            try await Task.sleep(for: .seconds(1))
        }
        published.withLock { $0 = true }
    }

    /// Records the `answers` (by request id) and returns the requests they lead to.
    private func advance(with answers: [String: [(Event, [UInt8])]]) throws -> [OutgoingMessage] {
        try owners.withLock { owners in
            var next: [OutgoingMessage] = []
            for index in owners.indices {
                var owner = owners[index]
                defer { owners[index] = owner }
                if owner.registration == nil, let registered = answers[owner.registrationId]?.first?.0 {
                    owner.registration = registered
                    guard registered.isCompleted else { continue }
                    let password = ChaosWorkload.password(of: owner.registrationId)
                    next.append(message(.tokenRequested(sealer.tokenRequest(.password, email: owner.email, credential: password,
                                                                            requestId: owner.signInId))))
                }
                if owner.signIn == nil, let answered = answers[owner.signInId]?.first?.0 {
                    owner.signIn = answered
                    guard let tokens = try sealer.tokens(in: answered, answering: owner.signInId) else { continue }
                    next.append(message(try request(of: owner, accessToken: tokens.accessToken)))
                }
                owner.answers.formUnion((answers[owner.requestId] ?? []).map(\.1))
            }
            return next
        }
    }

    /// The owner's update or deletion, with `accessToken`.
    private func request(of owner: Owner, accessToken: String) throws -> Event {
        switch owner.action {
        case .delete:
            .accountDeletionRequested(sealer.deletion(accessToken: accessToken, proof: .password(ChaosWorkload.password(of: owner.registrationId)),
                                                      requestId: owner.requestId))
        case .update(let name, let mapLocation, let corrupt):
            .profileUpdateRequested(try sealer.profileUpdate(accessToken: accessToken, name: name, isMapLocationEnabled: mapLocation,
                                                             avatar: corrupt ? Array(photo.prefix(photo.count / 2)) : photo,
                                                             requestId: owner.requestId))
        }
    }

    private func message(_ event: Event) -> OutgoingMessage {
        OutgoingMessage(event, producer: "registrar-chaos")
    }
}

extension Event {
    /// Whether it is a `RegistrationCompleted`.
    var isCompleted: Bool {
        if case .registrationCompleted = self { true } else { false }
    }
}
