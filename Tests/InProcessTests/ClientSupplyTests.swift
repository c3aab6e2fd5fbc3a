import Domain
import Foundation
import Kafka
import RegistrarClient
import Support
@testable import TestSupport
import Testing

/// `ClientSupply`, the clients the gateway and a waiting CLI command publish through (issue 23 point 2).
@Suite(.tags(.inProcess)) struct ClientSupplyTests {
    /// A client whose producer failed for good (an idempotent producer's fatal error, which librdkafka raises on a
    /// real cluster and never recovers from) is closed and replaced: the request is published again on a new client
    /// and answered, rather than retried on the dead one until its window ends.
    @Test func aClientThatCanPublishNoMoreIsReplacedAndTheRequestAnsweredOnTheNext() async throws {
        let system = try await InProcessSystem.shared()
        let verifier = try system.outcomeVerifier()
        let supply = ClientSupply()
        let stop = ShutdownSignal(signals: [])
        let supplying = Task { [publicKey = system.publicKey] in
            await supply.supply(from: system.cluster.bootstrapServers, following: nil, until: stop) { address in
                try RegistrarClient(kafka: KafkaConfiguration(bootstrapServers: address, clientID: "supply-test"), publicKey: publicKey,
                                    verifier: verifier, name: "supply-test")
            }
        }
        var used: [RegistrarClient] = []
        let request = Event.codeRequested(CodeRequested(requestId: UUID().uuidString, email: "supply-\(UUID().uuidString.prefix(8))@example.com",
                                                        purpose: .login))
        let answer = try await supply.attempt(until: .now + .seconds(60)) { client, left in
            used.append(client)
            if used.count == 1 { throw KafkaError(code: KafkaError.Code.fatal, message: "fabricated fatal error", isFatal: true) }
            return try await client.send(request, timeout: left)
        }
        stop.trigger()
        await supplying.value
        #expect(used.count == 2 && used.first !== used.last, "the request was tried again on the client that can publish no more")
        guard case .codeSent? = answer else { Issue.record("no code sent: \(String(describing: answer))"); return }
    }
}
