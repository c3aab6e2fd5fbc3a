import Courier
import Domain
import Foundation
@testable import TestSupport
import Testing
import Verification

/// The code dispatch step on a SQLite code store, a recording mailer and a manual clock: an outstanding code
/// mailed again, resend limits, refusals, and redeliveries answered without a second email.
@Suite(.tags(.unit)) struct CodeDispatchStepFakeTests {
    let codes = TemporaryCodeStore()
    let mailer = RecordingMailer()
    let clock = ManualClock()

    func step(cooldown: Double = 60) -> CodeDispatchStep {
        CodeDispatchStep(codes: codes, secrets: FakeCodeSecrets(), mailer: mailer, rules: CodeRules(policy: CodePolicy(cooldown: cooldown)),
                         clock: clock.closure)
    }

    func request(_ id: String, _ email: String = "ada@example.com", _ purpose: CodePurpose = .login) -> Event {
        .codeRequested(CodeRequested(requestId: id, email: email, purpose: purpose))
    }

    func sent(_ id: String, _ purpose: CodePurpose = .login) -> Event { .codeSent(CodeSent(requestId: id, purpose: purpose, expiresIn: 600)) }

    func refusal(_ events: [Event]) -> CodeRefused? {
        guard case .codeRefused(let refused) = events.first, events.count == 1 else { return nil }
        return refused
    }

    @Test func aCodeIsRecordedMailedAndARedeliveryMailsNothing() throws {
        let step = step()
        #expect(try step.dispatch(request("r-1", " Ada@Example.com")) == [sent("r-1")])
        #expect(try step.dispatch(request("r-1", " Ada@Example.com")) == [sent("r-1")])
        #expect(mailer.messages.count == 1)
        let message = try #require(mailer.messages.first)
        #expect(message.to == "ada@example.com" && message.subject == "Your Registrar code" && message.date == clock.now)
        let record = try #require(try codes.record("ada@example.com", .login))
        #expect(record.unmailed.isEmpty && record.issuedBy == "r-1" && record.expiresAt == clock.now.addingTimeInterval(600))
    }

    /// The subject shows on lock screens and in notification previews: the code is only in the body.
    @Test func theCodeIsInTheBodyOnlyNeverInTheHeaders() throws {
        _ = try step().dispatch(request("r-1"))
        let message = try #require(mailer.messages.first)
        #expect(!message.subject.contains("000001"))
        let rendered = message.rendered
        let headers = try #require(rendered.range(of: "\r\n\r\n")).lowerBound
        #expect(!rendered[..<headers].contains("000001"))
        #expect(message.text.contains("is: 000001") && message.html.contains("<b>000001</b>"))
        let recovery = CodeForm.display(recovery: FakeCodeSecrets().recoveryCode(from: "1"))
        #expect(message.text.contains("instead:\n\(recovery)") && !rendered[..<headers].contains(recovery))
    }

    /// A request while a code is outstanding has that very code mailed again, after the cooldown (per purpose):
    /// someone else's requests never take the owner's code away.
    @Test func anOutstandingCodeIsMailedAgainAfterTheCooldownPerPurpose() throws {
        let step = step()
        _ = try step.dispatch(request("r-1"))
        clock.advance(by: 10)
        let refused = try #require(refusal(try step.dispatch(request("r-2", "ADA@example.com"))))
        #expect(refused.reason == .codeRateLimited && refused.retryAfter == 50)
        #expect(try step.dispatch(request("r-3", "ada@example.com", .resetPassword)) == [sent("r-3", .resetPassword)])
        clock.advance(by: 50)
        #expect(try step.dispatch(request("r-4")) == [sent("r-4")])
        #expect(mailer.messages.count == 3)
        #expect(mailer.messages[2].text.contains("is: 000001"), "the same code, in a mail of its own request")
        #expect(mailer.messages[2].messageId.hasPrefix("code.r-4@"))
        #expect(try step.dispatch(request("r-4")) == [sent("r-4")] && mailer.messages.count == 3, "a redelivery mails nothing")
    }

    /// The hourly limit counts codes issued, each used or left to expire first: requests by someone without the
    /// mailbox cannot leave its owner without a code for more than one lifetime an hour.
    @Test func theHourlyLimitCountsCodesUsedOrExpired() throws {
        let step = step(cooldown: 0)
        for index in 1...5 {
            #expect(try step.dispatch(request("r-\(index)")) == [sent("r-\(index)")])
            clock.advance(by: 600)
        }
        #expect(Set(mailer.messages.map(\.text)).count == 5, "each code expired before the next was issued")
        #expect(refusal(try step.dispatch(request("r-6")))?.retryAfter == 600)
        clock.advance(by: 600)
        #expect(try step.dispatch(request("r-7")) == [sent("r-7")])
    }

    @Test func malformedRequestsAreRefusedAndNothingIsStoredOrMailed() throws {
        #expect(refusal(try step().dispatch(request("r-1", "not an email")))?.reason == .emailInvalid)
        #expect(refusal(try step().dispatch(request("../r", "ada@example.com")))?.reason == .requestIdInvalid)
        #expect(try codes.record("ada@example.com", .login) == nil && mailer.messages.isEmpty)
    }

    @Test func aFailedSendIsRetriedWithTheSameMessage() throws {
        let step = step()
        mailer.sends.arm(StoreError(.transient, "451 4.3.0 try again later"), times: 1)
        #expect(throws: StoreError.self) { try step.dispatch(request("r-1")) }
        #expect(try codes.record("ada@example.com", .login)?.unmailed == ["r-1"], "recorded before it is mailed")
        clock.advance(by: 5)
        #expect(try step.dispatch(request("r-1")) == [sent("r-1")])
        #expect(mailer.messages.map(\.text).allSatisfy { $0.contains("is: 000001") } && mailer.messages.count == 1)
        #expect(mailer.messages.first?.date == clock.now.addingTimeInterval(-5), "the very same message, dated when issued")
        #expect(try codes.record("ada@example.com", .login)?.unmailed == [])
    }

    @Test func aStoreRefusingTheWriteMailsNothing() throws {
        codes.updates.arm(StoreError(.transient, "read-only"), times: 1)
        #expect(throws: StoreError.self) { try step().dispatch(request("r-1")) }
        #expect(mailer.messages.isEmpty)
    }
}
