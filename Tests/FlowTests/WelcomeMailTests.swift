import Domain
import Foundation
@testable import TestSupport
import Testing

/// The welcome mail, a hook of the registration saga run by `SagaEngine` after the commit that completed it: one
/// for a completed registration, addressed to its account, none for a refused one.
@Suite(.tags(.kafkaFree)) struct WelcomeMailTests {
    @Test func aCompletedRegistrationIsWelcomedAndARefusedOneIsNot() async throws {
        try await KafkaFreeSystem.with { system in
            let ada = try await system.request(email: "Ada@Example.com", name: "Ada")
            try await system.publish([ada])
            guard case .registrationCompleted = try await system.waitForOutcomes([ada.registrationId])[ada.registrationId]?.first else {
                Issue.record("the registration did not complete"); return
            }
            let taken = try await system.request(email: "ada@example.com", name: "Not Ada")
            try await system.publish([taken])
            guard case .registrationFailed = try await system.waitForOutcomes([taken.registrationId])[taken.registrationId]?.first else {
                Issue.record("the second registration of the address was not refused"); return
            }
            let mail = try system.email(kind: "welcome", requestId: ada.registrationId)
            let lines = mail.split(whereSeparator: \.isNewline)
            #expect(lines.contains("To: ada@example.com") && lines.contains("Subject: Welcome to Registrar, Ada"), "\(mail)")
            #expect(try system.emails(kind: "welcome").count == 1, "none for the refused registration")
        }
    }
}
