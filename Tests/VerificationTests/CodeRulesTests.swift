import Domain
import Foundation
@testable import TestSupport
import Testing
@testable import Verification

/// The pure code rules: an outstanding code mailed again rather than replaced, the cooldown between its mails, the
/// hourly limit, single use, attempts, the recovery form, and distinct internal reasons.
@Suite(.tags(.unit)) struct CodeRulesTests {
    let rules = CodeRules()
    let start = Date(timeIntervalSince1970: 1_000_000)

    func issued(at date: Date, by request: String = "r1", after record: CodeRecord? = nil) -> CodeRecord {
        rules.issued(record, email: "a@example.com", purpose: .login, digest: "d-\(request)", recoveryDigest: "R-\(request)", nonce: "n-\(request)",
                     requestId: request, at: date)
    }

    func digits(_ record: inout CodeRecord?, _ digest: String, by request: String, replyKey: String? = nil, at date: Date) -> CodeRejection? {
        rules.verify(&record, form: .digits("000000"), digest: digest, requestId: request, replyKey: replyKey, at: date)
    }

    func recovery(_ record: inout CodeRecord?, _ digest: String, by request: String, at date: Date) -> CodeRejection? {
        rules.verify(&record, form: .recovery("AAAAAAAAAAAAAAAAAAAA"), digest: digest, requestId: request, at: date)
    }

    @Test func aFirstCodeIsIssuedAndItsRequestIsAnsweredAgain() {
        #expect(rules.admit(nil, requestId: "r1", at: start) == .issue)
        let record = issued(at: start)
        #expect(rules.admit(record, requestId: "r1", at: start) == .alreadyIssued)
        #expect(record.expiresAt == start.addingTimeInterval(600))
        #expect(record.senders == ["r1"] && record.unmailed == ["r1"])
    }

    /// Requests by others never replace the owner's code: the outstanding code is mailed again, at most once per cooldown.
    @Test func anOutstandingCodeIsMailedAgainNotReplaced() {
        let record = issued(at: start)
        #expect(rules.admit(record, requestId: "r2", at: start.addingTimeInterval(10)) == .refuse(retryAfter: 50))
        #expect(rules.admit(record, requestId: "r2", at: start.addingTimeInterval(59.2)) == .refuse(retryAfter: 1))
        #expect(rules.admit(record, requestId: "r2", at: start.addingTimeInterval(60)) == .resend)
        let resent = rules.resent(record, requestId: "r2", at: start.addingTimeInterval(60))
        #expect(resent.digest == record.digest && resent.nonce == record.nonce && resent.sentAt == record.sentAt)
        #expect(resent.senders == ["r1", "r2"] && resent.unmailed == ["r1", "r2"])
        #expect(rules.admit(resent, requestId: "r2", at: start.addingTimeInterval(61)) == .alreadyIssued)
        #expect(rules.admit(resent, requestId: "r3", at: start.addingTimeInterval(100)) == .refuse(retryAfter: 20), "a minute from the last mail")
        let mailed = rules.mailed(resent, requestId: "r1")
        #expect(mailed?.unmailed == ["r2"])
    }

    /// Once the owner used the code, the next may be issued at once: only the mailbox's owner can use one.
    @Test func aUsedOrExpiredCodeIsReplacedWithoutWaitingTheCooldown() {
        var record: CodeRecord? = issued(at: start)
        #expect(digits(&record, "d-r1", by: "login", at: start.addingTimeInterval(5)) == nil)
        #expect(rules.admit(record, requestId: "r2", at: start.addingTimeInterval(6)) == .issue)
        #expect(rules.admit(issued(at: start), requestId: "r2", at: start.addingTimeInterval(600)) == .issue, "expired")
    }

    /// The hourly limit counts codes issued, each used or expired before the next: requests by someone without the
    /// mailbox keep one code outstanding (which the owner receives too), and leave at most one lifetime an hour without one.
    @Test func theHourlyLimitCountsCodesUsedOrExpired() {
        var record: CodeRecord?
        for index in 0..<5 { record = issued(at: start.addingTimeInterval(Double(index) * 600), by: "r\(index)", after: record) }
        #expect(rules.admit(record, requestId: "r5", at: start.addingTimeInterval(4 * 600 + 60)) == .resend, "the fifth is outstanding")
        #expect(rules.admit(record, requestId: "r5", at: start.addingTimeInterval(5 * 600)) == .refuse(retryAfter: 600))
        #expect(rules.admit(record, requestId: "r5", at: start.addingTimeInterval(3600)) == .issue)
        let later = issued(at: start.addingTimeInterval(3600), by: "r5", after: record)
        #expect(later.sentAt.count == 5)
    }

    @Test func aCodeIsUsedOnceExceptByTheRequestThatUsedIt() {
        var record: CodeRecord? = issued(at: start)
        #expect(digits(&record, "d-r1", by: "login-1", at: start) == nil)
        #expect(digits(&record, "d-r1", by: "login-1", at: start) == nil)
        #expect(digits(&record, "d-r1", by: "login-2", at: start) == .used)
        #expect(recovery(&record, "R-r1", by: "login-2", at: start) == .used, "either form, once")
    }

    /// Attack 6: the request that used a code answered to a reply key may submit it again to that key
    /// only; replayed with another reply key (the memo of its answer gone) it is used.
    @Test func aCodeUsedByARequestIsRefusedToThatRequestIdWithAnotherReplyKey() {
        var record: CodeRecord? = issued(at: start)
        #expect(digits(&record, "d-r1", by: "login-1", replyKey: "victim", at: start) == nil)
        #expect(record?.usedBy == "login-1" && record?.usedWith == "victim")
        #expect(digits(&record, "d-r1", by: "login-1", replyKey: "victim", at: start) == nil)
        #expect(digits(&record, "d-r1", by: "login-1", replyKey: "attacker", at: start) == .used)
        #expect(digits(&record, "d-r1", by: "login-1", at: start) == .used)
    }

    /// Five wrong digits kill the digits; the recovery form, which no one guesses, still counts, and wrong recovery
    /// codes are counted nowhere.
    @Test func fiveWrongDigitsKillTheDigitsNotTheRecoveryForm() {
        var record: CodeRecord? = issued(at: start)
        for _ in 1...5 { #expect(digits(&record, "wrong", by: "x", at: start) == .mismatch) }
        #expect(digits(&record, "d-r1", by: "x", at: start) == .exhausted)
        for _ in 1...20 { #expect(recovery(&record, "R-wrong", by: "x", at: start) == .recoveryMismatch) }
        #expect(record?.attempts == 5)
        #expect(rules.admit(record, requestId: "r2", at: start.addingTimeInterval(60)) == .resend, "an exhausted code is still outstanding")
        #expect(recovery(&record, "R-r1", by: "owner", at: start) == nil)
        #expect(record?.usedBy == "owner")
    }

    @Test func expiredAndUnknownCodesHaveTheirOwnReasons() {
        var none: CodeRecord?
        #expect(digits(&none, "d", by: "x", at: start) == .unknown)
        var record: CodeRecord? = issued(at: start)
        #expect(digits(&record, "d-r1", by: "x", at: start.addingTimeInterval(600)) == .expired)
        #expect(recovery(&record, "R-r1", by: "x", at: start.addingTimeInterval(600)) == .expired)
        #expect(Set(CodeRejection.allCases.map(\.rawValue)).count == CodeRejection.allCases.count)
    }

    @Test func aSubmittedCodeIsItsDigitsOrItsRecoveryFormWhateverItsSpelling() {
        #expect(CodeForm("123456") == .digits("123456"))
        #expect(CodeForm("abcde-fghij klmno-pqrst") == .recovery("ABCDEFGHIJKLMNOPQRST"))
        #expect(CodeForm(CodeForm.display(recovery: "ABCDEFGHIJKLMNOPQRST")) == .recovery("ABCDEFGHIJKLMNOPQRST"))
        for garbage in ["12345", "1234567", "١٢٣٤٥٦", "ABCDEFGHIJKLMNOPQRS1", "ABCDEFGHIJKLMNOPQRSTU", ""] {
            #expect(CodeForm(garbage) == nil, "\(garbage)")
        }
    }
}
