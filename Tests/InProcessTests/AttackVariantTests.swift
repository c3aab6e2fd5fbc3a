@testable import TestSupport
import Testing

/// Issue 12 point 8's variants, table-driven, through the real workers in process on either store
/// (`Harness/Attacks/*Variants.swift`; `AdversarialTests` plays a few of them on the real binaries).
@Suite(.tags(.inProcess)) struct AttackVariantTests {
    @Test func everyInternalTypeOnEveryPublicTopicIsUnexpected() async throws {
        try await InProcessSystem.with { try await Attacks.everyInternalTypeOnEveryPublicTopicIsUnexpected(on: $0) }
    }

    @Test func everyInternalTypeWithoutItsProducersSignatureIsUnauthenticated() async throws {
        try await InProcessSystem.with { try await Attacks.everyInternalTypeWithoutItsProducersSignatureIsUnauthenticated(on: $0) }
    }

    @Test func everyReplyForNoSagaIsUnknown() async throws {
        try await InProcessSystem.with { try await Attacks.everyReplyForNoSagaIsUnknown(on: $0) }
    }

    @Test func everySealCopiedIntoEverySealedFieldIsRefused() async throws {
        try await InProcessSystem.with(extraArguments: Attacks.manyCodes) { try await Attacks.everySealCopiedIntoEverySealedFieldIsRefused(on: $0) }
    }

    @Test func everyAttackerChosenStagedKeyReadsAndDeletesNothing() async throws {
        try await InProcessSystem.with { try await Attacks.everyAttackerChosenStagedKeyReadsAndDeletesNothing(on: $0) }
    }
}
