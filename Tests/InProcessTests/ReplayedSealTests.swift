@testable import TestSupport
import Testing

/// Attack 2 of issue 12 (replayed seals) and its variants through the real workers in process (the bodies
/// are shared with `AdversarialTests`, which plays them on the real binaries: `Harness/Attacks`).
@Suite(.tags(.inProcess)) struct ReplayedSealTests {
    @Test func aRegistrationPasswordCopiedIntoASignInIsRefused() async throws {
        try await InProcessSystem.with { try await Attacks.aRegistrationPasswordCopiedIntoASignInIsRefused(on: $0) }
    }

    @Test func aSignInCredentialCopiedIntoAnotherSignInOrAPasswordChangeIsRefused() async throws {
        try await InProcessSystem.with { try await Attacks.aSignInCredentialCopiedIntoAnotherSignInOrAPasswordChangeIsRefused(on: $0) }
    }

    @Test func aCopiedPasswordInAnEmailChangeIsRefused() async throws {
        try await InProcessSystem.with(extraArguments: Attacks.noCodeCooldown) {
            try await Attacks.aCopiedPasswordInAnEmailChangeIsRefused(on: $0)
        }
    }

    @Test func aStaleSealOrAReusedRequestIdGivesTheAttackerNothing() async throws {
        try await InProcessSystem.with { try await Attacks.aStaleSealOrAReusedRequestIdGivesTheAttackerNothing(on: $0) }
    }
}
