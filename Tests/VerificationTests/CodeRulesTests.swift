import Domain
import Foundation
@testable import TestSupport
import Testing
@testable import Verification

/// The pure code rules: resend limits, replacement, single use, attempts, and distinct internal reasons.
@Suite(.tags(.unit)) struct CodeRulesTests {
    let rules = CodeRules()
    let start = Date(timeIntervalSince1970: 1_000_000)

    func issued(at date: Date, by request: String = "r1", after record: CodeRecord? = nil) -> CodeRecord {
        rules.issued(record, email: "a@example.com", purpose: .login, digest: "d-\(request)", nonce: nil, requestId: request, at: date)
    }

    @Test func aFirstCodeIsIssuedAndItsRequestIsAnsweredAgain() {
        #expect(rules.admit(nil, requestId: "r1", at: start) == .issue)
        let record = issued(at: start)
        #expect(rules.admit(record, requestId: "r1", at: start) == .alreadyIssued)
        #expect(record.expiresAt == start.addingTimeInterval(600))
    }

    @Test func aCodeNotKnownToBeMailedStaysPendingForItsRequestOnly() {
        let pending = rules.issued(nil, email: "a@example.com", purpose: .login, digest: "d", nonce: "n1", requestId: "r1", at: start)
        #expect(pending.pendingNonce == "n1" && rules.admit(pending, requestId: "r1", at: start) == .alreadyIssued)
        #expect(rules.admit(pending, requestId: "r2", at: start) == .refuse(retryAfter: 60), "it counts as sent")
        let mailed = rules.mailed(pending, requestId: "r1")
        #expect(mailed?.pendingNonce == nil && rules.admit(mailed, requestId: "r1", at: start) == .alreadyIssued)
        #expect(rules.mailed(pending, requestId: "r2") == pending, "another request's send changes nothing")
    }

    @Test func theCooldownSaysWhenTheNextCodeIsAllowed() {
        let record = issued(at: start)
        #expect(rules.admit(record, requestId: "r2", at: start.addingTimeInterval(10)) == .refuse(retryAfter: 50))
        #expect(rules.admit(record, requestId: "r2", at: start.addingTimeInterval(59.2)) == .refuse(retryAfter: 1))
        #expect(rules.admit(record, requestId: "r2", at: start.addingTimeInterval(60)) == .issue)
    }

    @Test func theHourlyCapCountsTheLastHourOnly() {
        var record: CodeRecord?
        for minute in 0..<5 { record = issued(at: start.addingTimeInterval(Double(minute) * 60), by: "r\(minute)", after: record) }
        let sixth = start.addingTimeInterval(5 * 60)
        #expect(rules.admit(record, requestId: "r5", at: sixth) == .refuse(retryAfter: 3300))
        #expect(rules.admit(record, requestId: "r5", at: start.addingTimeInterval(3600)) == .issue)
        let later = issued(at: start.addingTimeInterval(3600), by: "r5", after: record)
        #expect(later.sentAt.count == 5)
    }

    @Test func aNewCodeReplacesThePreviousOne() {
        var record: CodeRecord? = issued(at: start, by: "r1")
        record = issued(at: start.addingTimeInterval(60), by: "r2", after: record)
        #expect(rules.verify(&record, digest: "d-r1", requestId: "login", at: start.addingTimeInterval(61)) == .mismatch)
        #expect(rules.verify(&record, digest: "d-r2", requestId: "login", at: start.addingTimeInterval(61)) == nil)
    }

    @Test func aCodeIsUsedOnceExceptByTheRequestThatUsedIt() {
        var record: CodeRecord? = issued(at: start)
        #expect(rules.verify(&record, digest: "d-r1", requestId: "login-1", at: start) == nil)
        #expect(rules.verify(&record, digest: "d-r1", requestId: "login-1", at: start) == nil)
        #expect(rules.verify(&record, digest: "d-r1", requestId: "login-2", at: start) == .used)
    }

    /// Attack 6: the request that used a code answered to a reply key may submit it again to that key
    /// only; replayed with another reply key (the memo of its answer gone) it is used.
    @Test func aCodeUsedByARequestIsRefusedToThatRequestIdWithAnotherReplyKey() {
        var record: CodeRecord? = issued(at: start)
        #expect(rules.verify(&record, digest: "d-r1", requestId: "login-1", replyKey: "victim", at: start) == nil)
        #expect(record?.usedBy == "login-1" && record?.usedWith == "victim")
        #expect(rules.verify(&record, digest: "d-r1", requestId: "login-1", replyKey: "victim", at: start) == nil)
        #expect(rules.verify(&record, digest: "d-r1", requestId: "login-1", replyKey: "attacker", at: start) == .used)
        #expect(rules.verify(&record, digest: "d-r1", requestId: "login-1", at: start) == .used)
    }

    @Test func fiveWrongAttemptsKillTheCode() {
        var record: CodeRecord? = issued(at: start)
        for _ in 1...5 { #expect(rules.verify(&record, digest: "wrong", requestId: "x", at: start) == .mismatch) }
        #expect(rules.verify(&record, digest: "d-r1", requestId: "x", at: start) == .exhausted)
    }

    @Test func expiredAndUnknownCodesHaveTheirOwnReasons() {
        var none: CodeRecord?
        #expect(rules.verify(&none, digest: "d", requestId: "x", at: start) == .unknown)
        var record: CodeRecord? = issued(at: start)
        #expect(rules.verify(&record, digest: "d-r1", requestId: "x", at: start.addingTimeInterval(600)) == .expired)
        #expect(Set(CodeRejection.allCases.map(\.rawValue)).count == CodeRejection.allCases.count)
    }
}
