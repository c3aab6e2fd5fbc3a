import Domain
import Foundation
@testable import TestSupport
import Testing

/// The account worker refuses common new passwords (libpwquality's dictionary) on every path that sets one.
@Suite(.tags(.kafkaFree)) struct CommonPasswordFlowTests {
    @Test func registrationChangeAndResetRefuseACommonPassword() async throws {
        try await KafkaFreeSystem.with { system in
            let common = try await system.request(email: "common@example.com", password: "password")
            try await system.publish([common])
            guard case .registrationFailed(let failed) = try await system.waitForOutcomes([common.registrationId])[common.registrationId]?.first else {
                Issue.record("a registration with a common password did not fail"); return
            }
            #expect(failed.reason == .passwordTooCommon)

            _ = try await system.register("careful@example.com", password: "purple elephant dances quietly")
            let change = try await system.send(.passwordChangeRequested(system.sealing.passwordChange(email: "careful@example.com", password: "purple elephant dances quietly",
                newPassword: "12345678", requestId: UUID().uuidString)))
            #expect(reason(change) == .passwordTooCommon)
            let code = try await system.code(for: "careful@example.com", .resetPassword)
            let reset = try await system.send(.passwordResetRequested(system.sealing.passwordReset(email: "careful@example.com", code: code,
                newPassword: "qwertyuiop", requestId: UUID().uuidString)))
            #expect(reason(reset) == .passwordTooCommon)
            guard case .tokenIssued = try await system.signIn(.password, email: "careful@example.com",
                                                              secret: "purple elephant dances quietly").0 else {
                Issue.record("a refused change changed the password"); return
            }
        }
    }
}
