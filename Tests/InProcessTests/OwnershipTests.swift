@testable import TestSupport
import Testing

/// The attacks of issue 22 in process (the bodies in `TestSupport/Systems/Attacks/OwnershipAttacks.swift`; `OwnershipAttackTests`
/// plays them on the real binaries).
@Suite(.tags(.inProcess)) struct OwnershipTests {
    @Test func credentialChangesEndEverySession() async throws {
        try await InProcessSystem.with { try await Attacks.credentialChangesEndEverySession(on: $0) }
    }

    @Test func aReplayedCommandUndoesNoLaterStep() async throws {
        try await InProcessSystem.with { try await Attacks.aReplayedCommandUndoesNoLaterStep(on: $0) }
    }

    @Test func anIdReusedOnAnotherFlowGetsItsOwnAnswer() async throws {
        try await InProcessSystem.with { try await Attacks.anIdReusedOnAnotherFlowGetsItsOwnAnswer(on: $0) }
    }

    @Test func answersAreForgottenAfterTheirRetention() async throws {
        try await InProcessSystem.with(extraArguments: ["code-dispatch-worker": ["--answer-retention", "1"]]) {
            try await Attacks.answersAreForgottenAfterTheirRetention(on: $0)
        }
    }

    @Test func commonPasswordsAreRefusedEverywhere() async throws {
        try await InProcessSystem.with { try await Attacks.commonPasswordsAreRefusedEverywhere(on: $0) }
    }

    @Test func codesCountForTheirPurposeOnly() async throws {
        try await InProcessSystem.with { try await Attacks.codesCountForTheirPurposeOnly(on: $0) }
    }
}

/// Points 1 and 2 of issue 22 in process.
extension OwnershipTests {
    @Test func aRegistrationWithoutTheMailboxCreatesNothing() async throws {
        try await InProcessSystem.with { try await Attacks.aRegistrationWithoutTheMailboxCreatesNothing(on: $0) }
    }

    @Test func aPreHijackedAccountIsTheOwnersAfterTheFirstProof() async throws {
        try await InProcessSystem.with { try await Attacks.aPreHijackedAccountIsTheOwnersAfterTheFirstProof(on: $0) }
    }

    @Test func anUnprovenAccountsPasswordAsksOnceForALoginCode() async throws {
        try await InProcessSystem.with { try await Attacks.anUnprovenAccountsPasswordAsksOnceForALoginCode(on: $0) }
    }

    @Test func theOwnerComesBackWhateverTheCountersSay() async throws {
        try await InProcessSystem.with(extraArguments: Attacks.noCodeCooldown) { try await Attacks.theOwnerComesBackWhateverTheCountersSay(on: $0) }
    }

    @Test func locksExpireHoweverManyFailures() async throws {
        try await InProcessSystem.with(extraArguments: ["account-worker": ["--lockout-maximum", "2"]]) {
            try await Attacks.locksExpireHoweverManyFailures(on: $0, maximum: 2)
        }
    }
}
