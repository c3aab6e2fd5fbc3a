import Foundation
import Testing
@testable import SignIn

/// Refresh rotation: a current token rotates, its own request may rotate it again, anyone else reusing it revokes the family.
@Suite struct RotationDecisionTests {
    let now = Date(timeIntervalSince1970: 1_000_000)

    func token(replacedBy: String? = nil, revoked: Bool = false, expiresIn: Double = 60) -> RefreshToken {
        RefreshToken(digest: "d", family: "f", uid: "u", issuedBy: "r0", issuedAt: now, expiresAt: now.addingTimeInterval(expiresIn),
                     replacedBy: replacedBy, familyRevoked: revoked)
    }

    @Test func decisions() {
        #expect(RotationDecision.on(nil, requestId: "r1", at: now) == .refuse(.unknown))
        #expect(RotationDecision.on(token(), requestId: "r1", at: now) == .rotate)
        #expect(RotationDecision.on(token(replacedBy: "r1"), requestId: "r1", at: now) == .rotate)
        #expect(RotationDecision.on(token(replacedBy: "r1"), requestId: "r2", at: now) == .revokeFamily)
        #expect(RotationDecision.on(token(revoked: true), requestId: "r1", at: now) == .refuse(.revoked))
        #expect(RotationDecision.on(token(expiresIn: 0), requestId: "r1", at: now) == .refuse(.expired))
    }
}
