@testable import TestSupport
import Testing

/// Attack 7 of issue 12 through the real workers in process (the body is shared with `AdversarialTests`,
/// which plays it on the real binaries: `Harness/Attacks`).
@Suite(.tags(.inProcess)) struct OutcomePrivacyTests {
    @Test func theOutcomeTopicsCarryNoPersonalData() async throws {
        try await InProcessSystem.with { try await Attacks.theOutcomeTopicsCarryNoPersonalData(on: $0) }
    }
}
