import AccountChanges
import Domain
import Foundation
import SignIn
@testable import TestSupport
import Testing

/// An operator's request handled again after a crash that came right after its commit (the stores left as that crash
/// leaves them, then the same request delivered): it finishes what the crash cut short and is answered, never refused.
@Suite(.tags(.kafkaFree)) struct OperatorCrashWindowTests {
    @Test func aDisableHandledAgainAfterItsCommitRevokesTheSessionsLeftLive() async throws {
        try await KafkaFreeSystem.with { system in
            let uid = try await system.register("paused@example.com", password: "paused quartz lantern 42")
            _ = try #require(try await system.signIn(.password, email: "paused@example.com", secret: "paused quartz lantern 42").1)
            let (accounts, tokens) = (try system.backends.options.accountChangeStore(), try system.backends.options.tokenStore())
            let account = try #require(try accounts.account(uid: uid))
            #expect(try accounts.apply(.disable(endingSessionsAt: account.sessionCutoff(changedAt: system.now)), to: uid,
                                       announcing: AccountEvent(.accountDisabled, uid: uid, at: system.now, actor: "operator:ada")))
            #expect(try tokens.liveFamilies(uid: uid, at: system.now).count == 1, "the crash came before the revocation")

            let outcome = try await system.send(.operatorRequested(system.operatorRequest(.disable, "paused@example.com")))
            guard case .operatorAnswered = outcome else { Issue.record("not answered: \(outcome)"); return }
            #expect(try tokens.liveFamilies(uid: uid, at: system.now).isEmpty)
            #expect(try accounts.account(uid: uid)?.status == .disabled)
        }
    }

    @Test func aDeletionHandledAgainAfterItsBeginningIsAnsweredAndCompletes() async throws {
        try await KafkaFreeSystem.with { system in
            let uid = try await system.register("ordered@example.com", password: "ordered quartz lantern 42")
            let request = system.operatorRequest(.delete, "ordered@example.com")
            let accounts = try system.backends.options.accountChangeStore()
            let account = try #require(try accounts.account(uid: uid))
            let imageId = try accounts.avatar(of: account)
            let record = DeletionRecord(requestId: request.requestId, uid: uid, email: account.email, imageId: imageId,
                                        stage: DeletionSaga.firstStage(imageId: imageId), updatedAt: system.now)
            let ordered = AccountEvent(.accountDeletionOrdered, uid: uid, at: system.now, actor: "operator:ada")
            guard case .started = try accounts.begin(record, endingSessionsAt: account.sessionCutoff(changedAt: system.now),
                                                     announcing: ordered) else {
                Issue.record("the deletion did not begin"); return
            }

            let outcome = try await system.send(.operatorRequested(request))
            guard case .operatorAnswered = outcome else { Issue.record("not answered: \(outcome)"); return }
            #expect(try accounts.account(uid: uid) == nil && system.backends.profiles().profile(uid: uid) == nil)
        }
    }
}

extension KafkaFreeSystem {
    /// `action` on the account of `email` by the operator `ada`, issued now (no signature: nothing here checks one).
    func operatorRequest(_ action: OperatorAction, _ email: String) -> OperatorRequested {
        let id = UUID().uuidString.lowercased()
        return OperatorRequested(requestId: id, action: action, email: email, actor: "ada", replyKey: sealing.replyKey(for: id),
                                 locale: nil, issuedAt: Int(now.timeIntervalSince1970))
    }
}
