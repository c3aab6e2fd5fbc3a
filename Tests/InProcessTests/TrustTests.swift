@testable import TestSupport
import Testing

/// Attacks 1, 3 and 4 of issue 12 through the real workers in process (attack 5 is in `AttackVariantTests`); the
/// bodies are shared with `AdversarialTests`, which plays them on the real binaries (`Harness/Attacks`).
@Suite(.tags(.inProcess)) struct TrustTests {
    @Test func forgedRepliesDeleteNothing() async throws {
        try await InProcessSystem.with { try await Attacks.forgedRepliesDeleteNothing(on: $0) }
    }

    @Test func aRequestIdThatIsTheVictimsRegistrationIdSignsInOnlyTheCodesOwner() async throws {
        try await InProcessSystem.with(extraArguments: Attacks.noCodeCooldown) {
            try await Attacks.aRequestIdThatIsTheVictimsRegistrationIdSignsInOnlyTheCodesOwner(on: $0)
        }
    }

    @Test func aForgedCompletionIssuesNoTokensForTheVictim() async throws {
        try await InProcessSystem.with(extraArguments: Attacks.noCodeCooldown) {
            try await Attacks.aForgedCompletionIssuesNoTokensForTheVictim(on: $0)
        }
    }
}
