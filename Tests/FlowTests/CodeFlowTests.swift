import Domain
import Foundation
@testable import TestSupport
import Testing

/// One-time codes through the real code dispatch and account workers in process: resend limits, expiry, single
/// use, digits dead after five wrong attempts (the recovery form still counts), and no difference between known and
/// unknown emails.
@Suite(.tags(.kafkaFree)) struct CodeFlowTests {
    @Test func aSecondCodeWithinTheCooldownIsRefusedWithRetryAfter() async throws {
        try await KafkaFreeSystem.with { system in
            #expect(try await system.requestCode("cool@example.com", .login, id: "first") == .codeSent(
                CodeSent(requestId: "first", purpose: .login, expiresIn: 600)))
            guard case .codeRefused(let refused) = try await system.requestCode("COOL@example.com", .login) else {
                Issue.record("second code within 60 s was sent")
                return
            }
            #expect(refused.reason == .codeRateLimited)
            #expect((50...60).contains(refused.retryAfter ?? 0))
            // Limits are per purpose; a redelivered request is answered again without a second email.
            guard case .codeSent = try await system.requestCode("cool@example.com", .resetPassword) else { Issue.record("other purpose refused"); return }
            guard case .codeSent = try await system.requestCode("cool@example.com", .login, id: "first") else { Issue.record("redelivery refused"); return }
            #expect(try system.emails(kind: "code").count == 2)
        }
    }

    /// The hourly limit counts codes issued, each used or left to expire before the next (an outstanding one is mailed
    /// again instead): five codes an hour, the sixth request waits for the first to leave the hour.
    @Test func theSixthCodeWithinAnHourIsRefusedWithRetryAfter() async throws {
        try await KafkaFreeSystem.with(extraArguments: ["code-dispatch-worker": ["--code-cooldown", "0", "--code-ttl", "1"]]) { system in
            for _ in 1...5 {
                let answer = try await system.requestCode("hourly@example.com", .login)
                guard case .codeSent = answer else { Issue.record("refused early: \(answer)"); return }
                system.clock.advance(by: 2)
            }
            guard case .codeRefused(let refused) = try await system.requestCode("hourly@example.com", .login) else {
                Issue.record("sixth code in an hour was sent")
                return
            }
            #expect(refused.reason == .codeRateLimited)
            #expect((3580...3600).contains(refused.retryAfter ?? 0))
        }
    }

    @Test func anExpiredCodeIsRefused() async throws {
        try await KafkaFreeSystem.with(extraArguments: ["code-dispatch-worker": ["--code-ttl", "1"]]) { system in
            let code = try await system.code(for: "late@example.com", .login)
            system.clock.advance(by: 1.5) // past the code's whole lifetime
            let (outcome, tokens) = try await system.signIn(.email, email: "late@example.com", secret: code)
            #expect(reason(outcome) == .invalidCredentials)
            #expect(tokens == nil)
        }
    }

    /// Five wrong digits kill the digits; the code, mailed again, still counts in its recovery form, once.
    @Test func aCodeWorksOnceAndTheSixthAttemptFailsEvenWithTheRightDigits() async throws {
        try await KafkaFreeSystem.with(extraArguments: ["code-dispatch-worker": ["--code-cooldown", "0"]]) { system in
            let code = try await system.code(for: "once@example.com", .login)
            let wrong = code == "000000" ? "111111" : "000000"
            for _ in 1...5 {
                #expect(reason(try await system.signIn(.email, email: "once@example.com", secret: wrong).0) == .invalidCredentials)
            }
            #expect(reason(try await system.signIn(.email, email: "once@example.com", secret: code).0) == .invalidCredentials)

            let again = UUID().uuidString
            guard case .codeSent = try await system.requestCode("once@example.com", .login, id: again) else { Issue.record("not mailed again"); return }
            #expect(!(try system.email(kind: "code", requestId: again)).contains(code), "the dead digits are not mailed again")
            let recovery = try system.recoveryCode(sentBy: again)
            let (first, tokens) = try await system.signIn(.email, email: "once@example.com", secret: recovery)
            guard case .tokenIssued = first else { Issue.record("the recovery form refused: \(first)"); return }
            #expect(tokens != nil)
            #expect(reason(try await system.signIn(.email, email: "once@example.com", secret: recovery).0) == .invalidCredentials)
        }
    }

    @Test func anUnknownEmailLooksLikeAKnownOne() async throws {
        try await KafkaFreeSystem.with { system in
            _ = try await system.register("known@example.com", password: "known password 1 by the quiet river")
            var answers: [String: [Event]] = [:]
            for (tag, email) in [("k", "known@example.com"), ("u", "unknown@example.com")] {
                for (index, purpose) in [CodePurpose.login, .resetPassword, .login].enumerated() {
                    answers[tag, default: []].append(try await system.requestCode(email, purpose, id: "\(tag)-\(index)"))
                }
            }
            // The same answers but for the request ids (and a second of rate-limit clock).
            #expect(answers["k"]?.map(anonymous) == answers["u"]?.map(anonymous))
            #expect(answers["u"]?.map(anonymous) == [.codeSent(CodeSent(requestId: "", purpose: .login, expiresIn: 600)),
                                                      .codeSent(CodeSent(requestId: "", purpose: .resetPassword, expiresIn: 600)),
                                                      .codeRefused(CodeRefused(requestId: "", reason: .codeRateLimited, message: "", retryAfter: 0))])
            // Both got the same email, and a wrong code is refused the same way.
            #expect(try system.email(kind: "code", requestId: "k-0").contains("To: known@example.com"))
            #expect(try system.email(kind: "code", requestId: "u-0").contains("To: unknown@example.com"))
            let refusals = try await [("known@example.com", "k"), ("unknown@example.com", "u")].asyncMap { email, id in
                try await system.signIn(.email, email: email, secret: "999999", id: "wrong-\(id)").0
            }
            #expect(refusals.map(reason) == [.invalidCredentials, .invalidCredentials])
            guard case .tokenRefused(let a) = refusals[0], case .tokenRefused(let b) = refusals[1] else { return }
            #expect(a.message == b.message)
        }
    }
}

/// `event` without what differs between any two requests: the request id and the rate-limit wait.
private func anonymous(_ event: Event) -> Event {
    switch event {
    case .codeSent(var sent):
        sent.requestId = ""
        return .codeSent(sent)
    case .codeRefused(let refused):
        return .codeRefused(CodeRefused(requestId: "", reason: refused.reason, message: "", retryAfter: refused.retryAfter.map { _ in 0 }))
    default:
        return event
    }
}
