@testable import TestSupport
import Testing

/// Issue 12 point 1 through the real workers in process (the body is shared with `AdversarialTests`,
/// which plays it on the real binaries: `Harness/Attacks`).
@Suite(.tags(.inProcess)) struct ForgedEventTests {
    @Test func internalEventsWithoutTheirProducersSignatureChangeNothing() async throws {
        try await InProcessSystem.with { try await Attacks.internalEventsWithoutTheirProducersSignatureChangeNothing(on: $0) }
    }
}
