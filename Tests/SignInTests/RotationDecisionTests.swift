import Foundation
@testable import SignIn
@testable import TestSupport
import Testing

/// Refresh rotation: a current token rotates, its own request may rotate it again to the same reply key,
/// anyone else reusing it (or that request id with another reply key) revokes the family.
@Suite(.tags(.unit)) struct RotationDecisionTests {
    let now = Date(timeIntervalSince1970: 1_000_000)

    func token(replacedBy: String? = nil, revoked: Bool = false, expiresIn: Double = 60) -> RefreshToken {
        RefreshToken(digest: "d", family: "f", uid: "u", issuedBy: "r0", issuedAt: now, expiresAt: now.addingTimeInterval(expiresIn),
                     replacedBy: replacedBy, replacedWith: replacedBy.map { _ in "k1" }, familyRevoked: revoked)
    }

    func decision(_ token: RefreshToken?, _ requestId: String, replyKey: String = "k1") -> RotationDecision {
        RotationDecision.on(token, requestId: requestId, replyKey: replyKey, at: now)
    }

    @Test func decisions() {
        #expect(decision(nil, "r1") == .refuse(.unknown))
        #expect(decision(token(), "r1") == .rotate)
        #expect(decision(token(replacedBy: "r1"), "r1") == .rotate)
        #expect(decision(token(replacedBy: "r1"), "r1", replyKey: "attacker") == .revokeFamily, "a replay to another reply key")
        #expect(decision(token(replacedBy: "r1"), "r2") == .revokeFamily)
        #expect(decision(token(revoked: true), "r1") == .refuse(.revoked))
        #expect(decision(token(expiresIn: 0), "r1") == .refuse(.expired))
    }
}
