import Testing

/// Attacks 1, 3, 4 and 5 of issue 12 through the real workers in process (the bodies are shared with
/// `AdversarialTests`, which plays them on the real binaries: `Harness/Attacks`).
@Suite struct TrustTests {
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

    @Test func aStagedKeyNamingTheVictimsAvatarReadsAndDeletesNothing() async throws {
        try await InProcessSystem.with { try await Attacks.aStagedKeyNamingTheVictimsAvatarReadsAndDeletesNothing(on: $0) }
    }
}
