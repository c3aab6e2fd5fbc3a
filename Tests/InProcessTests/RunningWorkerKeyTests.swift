import Domain
import EventTransport
import Foundation
@testable import TestSupport
import Testing
import WorkerRuntime

/// Keys and ledgers that change under running workers (issue 12): an event-key rotation is followed at once,
/// the old key accepted until it is retired; the account worker's sweep forgets expired seal claims.
@Suite(.tags(.inProcess)) struct RunningWorkerKeyTests {
    /// The account role's key rotated and retired while every worker runs: registrations complete throughout,
    /// the new key signs the next commands, an event signed with the old key is taken during the overlap
    /// (the image worker answers it) and refused `unauthenticated` once the old key is retired.
    @Test func runningWorkersFollowAnEventKeyRotation() async throws {
        try await InProcessSystem.with { system in
            let keys = EventKeyDirectory(system.directory + "/keys")
            _ = try await system.victim("before@example.com")
            let old = try system.signer(.account)
            let new = try keys.rotate(.account)
            let after = try await system.victim("after@example.com")
            let command = try #require(try await TopicSnapshot.read([Topic.imageCommands], configuration: system.kafka)
                .first { $0.keyString == after.registrationId })
            #expect(command.header(EventSignature.keyHeader).map { String(decoding: $0, as: UTF8.self) } == new.keyID,
                    "the running account worker signs with the new key")
            try await system.forge(.deleteAvatar(DeleteAvatar(registrationId: "old-key-1", imageId: UUID().uuidString, step: "compensating", revision: 3)), signedBy: old)
            let answered = try await system.deadLetter(from: Topic.registrationReplies, key: "old-key-1")
            #expect(answered.header("dlq.reason").map { String(decoding: $0, as: UTF8.self) } == "unknown_saga",
                    "the image worker took the old key's command and answered it (a reply for no saga)")
            #expect(try keys.retirePrevious(of: .account))
            try await system.forge(.deleteAvatar(DeleteAvatar(registrationId: "old-key-2", imageId: UUID().uuidString, step: "compensating", revision: 3)), signedBy: old)
            let refused = try await system.deadLetter(from: Topic.imageCommands, key: "old-key-2")
            #expect(refused.header("dlq.reason").map { String(decoding: $0, as: UTF8.self) } == "unauthenticated")
            _ = try await system.victim("retired@example.com")
        }
    }

    /// A sign-in's seal claim is kept for the claim retention (2 × the 300 s maximum age + 60 s) on the workers'
    /// clock, then the account worker's periodic sweep forgets it.
    @Test func theAccountWorkerForgetsExpiredSealClaims() async throws {
        try await InProcessSystem.with { system in
            let victim = try await system.victim()
            let id = UUID().uuidString
            guard case .tokenIssued = try await system.signIn(.password, email: victim.email, secret: victim.password, id: id).0 else {
                Issue.record("the sign-in failed")
                return
            }
            let ledger = try system.backends.sealLedger()
            let claim = "\(Topic.authRequests)/\(id)"
            system.clock.advance(by: 659)
            try await Task.sleep(for: .seconds(1))
            #expect(try !ledger.claim(requestId: claim, digest: "another", at: system.clock.now), "kept within the retention")
            system.clock.advance(by: 2)
            let deadline = ContinuousClock.now + .seconds(30)
            while try !ledger.claim(requestId: claim, digest: "another", at: system.clock.now) {
                guard ContinuousClock.now < deadline else { Issue.record("the claim was not forgotten"); return }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }
}
