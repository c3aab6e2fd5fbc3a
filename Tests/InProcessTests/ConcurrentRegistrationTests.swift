import Domain
@testable import TestSupport
import Testing

/// Registrations of one email at once, spread over the partitions and handled concurrently by the account worker's
/// lanes in process: one account. (The saga's other paths run without Kafka, in `RegistrationFlowTests`.)
@Suite(.tags(.inProcess)) struct ConcurrentRegistrationTests {
    @Test func twentyConcurrentRegistrationsOfOneEmailMakeOneAccount() async throws {
        try await InProcessSystem.with { system in
            let spellings = ["same@example.com", "SAME@example.com", "Same@Example.Com", " same@EXAMPLE.com "]
            let requests = try await (0..<20).asyncMap { try await system.request(email: spellings[$0 % spellings.count], name: "Racer \($0)") }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for chunk in stride(from: 0, to: requests.count, by: 5) {
                    group.addTask { try await system.publish(Array(requests[chunk..<chunk + 5])) }
                }
                try await group.waitForAll()
            }
            let outcomes = try await system.waitForOutcomes(requests.map(\.registrationId))
            let completed = requests.filter { if case .registrationCompleted = outcomes[$0.registrationId]?.first { true } else { false } }
            #expect(completed.count == 1)
            // They share the address's register code: the first to use it registers, the others find it used.
            #expect(requests.filter { [.emailTaken, .invalidCredentials].contains(reason(outcomes[$0.registrationId])) }.count == 19)
            #expect(try system.backends.accounts().accounts().count == 1)
            #expect(try system.backends.profiles().profiles().count == 1)
            #expect(try system.audit().isEmpty)
        }
    }

    private func reason(_ outcomes: [Event]?) -> ReasonCode? {
        guard case .registrationFailed(let failed) = outcomes?.first else { return nil }
        return failed.reason
    }
}
