import Crypto
import Domain
import EventTransport
import Foundation
import Kafka
import RegistrarClient
import SignIn
import Synchronization
import Testing

/// Issue 21 points 1 and 9, as a client that reads and writes the outcome topics (`GenuineOutcomeTests` in process,
/// `AdversarialTests` on the real binaries, both stores).
extension Attacks {
    /// While the account worker is held, the attacker answers a victim's sign-in first: tokens of its own sealed to the
    /// victim's reply key (unsigned, signed by another role, signed by an unknown key), a plain refusal, and a genuine
    /// signed outcome of another request moved under the victim's request id. The client ignores each and, once the
    /// worker answers, hands the victim its own tokens.
    static func forgedOutcomesReachNoClient(on system: some TestSystem) async throws {
        let victim = try await system.victim()
        // A genuine outcome the attacker can copy: its own sign-in's, signed by the account worker.
        let attacker = Attacks.unique("attacker") + "@example.com"
        _ = try await system.register(attacker, password: "attacker tram9 violet passphrase")
        let attackersOwn = UUID().uuidString.lowercased()
        guard case (.tokenIssued, _?) = try await system.signIn(.password, email: attacker, secret: "attacker tram9 violet passphrase", id: attackersOwn) else {
            throw HarnessError("the attacker's own sign-in failed")
        }
        let genuine = try #require(try await TopicSnapshot.read([Topic.authOutcomes], configuration: system.kafka)
            .first { $0.keyString == attackersOwn })
        let ignoredBefore = system.client.ignoredOutcomes

        try await system.hold("account-worker")
        let id = UUID().uuidString.lowercased()
        let answered = Mutex(false)
        let signIn = Task {
            defer { answered.withLock { $0 = true } }
            return try await system.signIn(.password, email: victim.email, secret: victim.password, id: id)
        }
        do {
            guard case .tokenRequested(let request) = try await system.waitForPublished(on: Topic.authRequests, key: id) else {
                throw HarnessError("no token request \(id)")
            }
            let forgedPair = TokenPair(requestId: id, uid: "attacker-uid", accessToken: "attacker.access.token", refreshToken: "attacker-refresh")
            let sealed = Data(try SealingPublicKey(base64: request.replyKey).seal(Array(forgedPair.sealedJSON.utf8))).base64EncodedString()
            let issued = Event.tokenIssued(TokenIssued(requestId: id, sealedTokens: sealed, expiresIn: 900, accountCreated: false))
            try await system.forge(issued)
            try await system.forge(issued, signedBy: try system.signer(.image))
            try await system.forge(issued, signedBy: EventSigner(role: .account, key: .generate()))
            try await system.forge(.tokenRefused(RequestRefusal(requestId: id, reason: .invalidCredentials, message: "forged")))
            try await system.client.publish(OutgoingMessage(topic: genuine.topic, key: Array(id.utf8), value: genuine.value,
                                                            headers: genuine.headers))
            let deadline = ContinuousClock.now + .seconds(30)
            while system.client.ignoredOutcomes - ignoredBefore < 5, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
            #expect(system.client.ignoredOutcomes - ignoredBefore == 5, "the client did not see and ignore every forgery")
            #expect(!answered.withLock { $0 }, "a forged outcome settled the victim's sign-in")
        } catch {
            try await system.resume("account-worker")
            throw error
        }
        try await system.resume("account-worker")
        let (outcome, pair) = try await signIn.value
        guard case .tokenIssued = outcome, let pair else { Issue.record("the victim got no tokens: \(outcome)"); return }
        #expect(pair.uid == victim.uid && pair.accessToken != "attacker.access.token" && pair.requestId == id)
    }

    /// A request id answered already, published again with another reply key (the attacker's), gets only the first
    /// answer again, sealed to the first key: the attacker opens nothing. A refresh token presented so — the one
    /// that request rotated — revokes its family: the victim's rotated token no longer refreshes.
    static func aRequestIdReusedWithAnotherReplyKeyOpensNothingAndRevokesTheFamily(on system: some TestSystem) async throws {
        let victim = try await system.victim()
        guard case (.tokenIssued, let first?) = try await system.signIn(.password, email: victim.email, secret: victim.password) else {
            throw HarnessError("the victim cannot sign in")
        }
        let rotation = UUID().uuidString.lowercased()
        guard case (.tokenIssued(let issued), let rotated?) = try await system.signIn(.refreshToken, email: nil, secret: first.refreshToken,
                                                                                     id: rotation) else {
            throw HarnessError("the victim's refresh failed")
        }
        let attacker = ReplySecret.generate()
        let attackerKey = attacker.replyKey(for: rotation)
        let sealed = system.publicKey.sealedBase64(first.refreshToken, for: .refreshToken,
                                                   in: SealContext(requestId: rotation, email: nil, replyKey: attackerKey))
        let repeated = try await system.send(.tokenRequested(TokenRequested(requestId: rotation, grantType: .refreshToken, email: nil,
                                                                            sealedCredential: sealed, replyKey: attackerKey)))
        guard case .tokenIssued(let again) = repeated else { Issue.record("not the first answer: \(repeated)"); return }
        #expect(again == issued, "the first answer, byte for byte")
        #expect(throws: NotOurAnswer.self) { try attacker.open(again.sealedTokens, as: TokenPair.self, answering: rotation) }
        #expect(reason(try await system.signIn(.refreshToken, email: nil, secret: rotated.refreshToken).0) == .invalidCredentials,
                "the family survived the reuse")
        try await system.expectUnchanged(victim)
    }
}

extension TestSystem {
    /// The first event published on `topic` under `key`, waiting for it up to `timeout`.
    func waitForPublished(on topic: String, key: String, timeout: Duration = .seconds(60)) async throws -> Event {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let event = try? await published(on: topic, key: key) { return event }
            guard ContinuousClock.now < deadline else { throw HarnessError("nothing published on \(topic) under \(key) within \(timeout)") }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}
