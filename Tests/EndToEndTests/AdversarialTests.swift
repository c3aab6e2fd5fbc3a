@testable import TestSupport
import Testing

/// The attacks of issue 12 (point 8) on the real binaries: the same bodies as the in-process `TrustTests`,
/// `ForgedEventTests`, `ReplayedSealTests` and `OutcomePrivacyTests` (`Harness/Attacks`), on two installations
/// the attacks share (one with a code cooldown, one without; of their own, since they leave dead letters other
/// suites count): each attack keeps to its own mailboxes and ids (`Attacks.unique`), and what it reads of a
/// whole topic it narrows to its victim.
/// The production pass of `scripts/test` runs them again on PostgreSQL, S3 and SMTP.
@Suite(.tags(.live)) struct AdversarialTests {
    // Attacks 1, 3, 4
    @Test func forgedRepliesDeleteNothing() async throws {
        try await LiveSystem.shared(by: "AdversarialTests") { try await Attacks.forgedRepliesDeleteNothing(on: $0) }
    }

    @Test func aRequestIdThatIsTheVictimsRegistrationIdSignsInOnlyTheCodesOwner() async throws {
        try await LiveSystem.shared(by: "AdversarialTests", extraArguments: Attacks.noCodeCooldown) {
            try await Attacks.aRequestIdThatIsTheVictimsRegistrationIdSignsInOnlyTheCodesOwner(on: $0)
        }
    }

    @Test func aForgedCompletionIssuesNoTokensForTheVictim() async throws {
        try await LiveSystem.shared(by: "AdversarialTests", extraArguments: Attacks.noCodeCooldown) {
            try await Attacks.aForgedCompletionIssuesNoTokensForTheVictim(on: $0)
        }
    }

    // Issue 12 point 1: forged internal events
    @Test func internalEventsWithoutTheirProducersSignatureChangeNothing() async throws {
        try await LiveSystem.shared(by: "AdversarialTests") { try await Attacks.internalEventsWithoutTheirProducersSignatureChangeNothing(on: $0) }
    }

    // Attack 2: replayed seals
    @Test func aRegistrationPasswordCopiedIntoASignInIsRefused() async throws {
        try await LiveSystem.shared(by: "AdversarialTests") { try await Attacks.aRegistrationPasswordCopiedIntoASignInIsRefused(on: $0) }
    }

    @Test func aSignInCredentialCopiedIntoAnotherSignInOrAPasswordChangeIsRefused() async throws {
        try await LiveSystem.shared(by: "AdversarialTests") { try await Attacks.aSignInCredentialCopiedIntoAnotherSignInOrAPasswordChangeIsRefused(on: $0) }
    }

    @Test func aCopiedPasswordInAnEmailChangeIsRefused() async throws {
        try await LiveSystem.shared(by: "AdversarialTests", extraArguments: Attacks.noCodeCooldown) {
            try await Attacks.aCopiedPasswordInAnEmailChangeIsRefused(on: $0)
        }
    }

    @Test func aStaleSealOrAReusedRequestIdGivesTheAttackerNothing() async throws {
        try await LiveSystem.shared(by: "AdversarialTests") { try await Attacks.aStaleSealOrAReusedRequestIdGivesTheAttackerNothing(on: $0) }
    }

    // Attack 7: personal data on the outcome topics
    @Test func theOutcomeTopicsCarryNoPersonalData() async throws {
        try await LiveSystem.shared(by: "AdversarialTests") { try await Attacks.theOutcomeTopicsCarryNoPersonalData(on: $0) }
    }

    // Issue 21 points 1 and 9: genuine outcomes only; a request id reused with another reply key
    @Test func forgedOutcomesReachNoClient() async throws {
        try await LiveSystem.shared(by: "AdversarialTests") { try await Attacks.forgedOutcomesReachNoClient(on: $0) }
    }

    @Test func aRequestIdReusedWithAnotherReplyKeyOpensNothingAndRevokesTheFamily() async throws {
        try await LiveSystem.shared(by: "AdversarialTests") {
            try await Attacks.aRequestIdReusedWithAnotherReplyKeyOpensNothingAndRevokesTheFamily(on: $0)
        }
    }

    // Point 8's variants (all of them run in process: AttackVariantTests); two tables on the real binaries, attack 5 among them
    @Test func everyReplyForNoSagaIsUnknown() async throws {
        try await LiveSystem.with { try await Attacks.everyReplyForNoSagaIsUnknown(on: $0) }
    }

    @Test func everyAttackerChosenStagedKeyReadsAndDeletesNothing() async throws {
        try await LiveSystem.with { try await Attacks.everyAttackerChosenStagedKeyReadsAndDeletesNothing(on: $0) }
    }
}
