import Domain
import Foundation
import Registration
import Synchronization
@testable import TestSupport
import Testing

/// A seal opens only in the message it was made for: its purpose, request id, email and reply key, within the
/// maximum age, and once per request id (the very same seals again being a redelivery).
@Suite(.tags(.unit)) struct SealOpenerTests {
    let clock = ManualClock()
    let ledger = TemporarySealLedger()
    let context = SealContext(requestId: "q-1", email: "ada@example.com", replyKey: "key:ada")
    var opener: SealOpener { SealOpener(vault: FakeVault(), ledger: ledger, maximumAge: 300, clock: clock.closure) }

    func sealed(_ secret: String = "ada password", _ purpose: SealedSecret.Purpose = .signInPassword,
                _ context: SealContext? = nil, at date: Date? = nil) -> String {
        FakeVault.sealed(secret, purpose, context ?? self.context, at: date ?? clock.now)
    }

    @Test func aSealForItsMessageOpensAndItsRedeliveryToo() throws {
        let seal = sealed()
        #expect(try opener.open([(seal, .signInPassword)], in: context, on: "auth.requests") == .opened(["ada password"]))
        #expect(try opener.open([(seal, .signInPassword)], in: context, on: "auth.requests") == .opened(["ada password"]), "the same seals again")
        let mixedCase = SealContext(requestId: "q-2", email: " ADA@example.com", replyKey: "key:ada")
        #expect(try opener.open([(sealed("p", .signInPassword, mixedCase), .signInPassword)],
                                in: SealContext(requestId: "q-2", email: "ada@EXAMPLE.com", replyKey: "key:ada"), on: "auth.requests") == .opened(["p"]))
    }

    @Test(arguments: SealedSecret.Purpose.allCases)
    func aSealOfAnotherPurposeIsRefused(purpose: SealedSecret.Purpose) throws {
        let other = SealedSecret.Purpose.allCases.first { $0 != purpose }!
        #expect(try opener.open([(sealed("s", other), purpose)], in: context, on: "auth.requests") == .refused)
    }

    @Test func aSealForAnotherMessageIsRefused() throws {
        let others = [
            SealContext(requestId: "q-other", email: "ada@example.com", replyKey: "key:ada"),
            SealContext(requestId: "q-1", email: "eve@example.com", replyKey: "key:ada"),
            SealContext(requestId: "q-1", email: nil, replyKey: "key:ada"),
            SealContext(requestId: "q-1", email: "ada@example.com", replyKey: "key:eve"),
        ]
        for other in others {
            #expect(try opener.open([(sealed(), .signInPassword)], in: other, on: "auth.requests") == .refused, "\(other)")
        }
    }

    @Test func aSealOlderOrNewerThanTheMaximumAgeIsRefused() throws {
        #expect(try opener.open([(sealed(at: clock.now.addingTimeInterval(-301)), .signInPassword)], in: context, on: "auth.requests") == .refused)
        #expect(try opener.open([(sealed(at: clock.now.addingTimeInterval(301)), .signInPassword)], in: context, on: "auth.requests") == .refused)
        let fresh = sealed(at: clock.now.addingTimeInterval(-299))
        #expect(try opener.open([(fresh, .signInPassword)], in: context, on: "auth.requests") == .opened(["ada password"]))
        clock.advance(by: 2)
        #expect(try opener.open([(fresh, .signInPassword)], in: context, on: "auth.requests") == .refused, "the same seal, later")
    }

    /// Issue 23 point 4: a seal refused for its time alone reports the measured skew (the worker's time less the sealed
    /// time); one refused for anything else reports none.
    @Test func aSealRefusedForItsTimeReportsTheSkew() throws {
        let skews = Mutex<[Int]>([])
        let opener = SealOpener(vault: FakeVault(), ledger: ledger, maximumAge: 300, clock: clock.closure,
                                onSkew: { skew in skews.withLock { $0.append(skew) } })
        #expect(try opener.open([(sealed(at: clock.now.addingTimeInterval(-600)), .signInPassword)], in: context, on: "auth.requests") == .refused)
        #expect(try opener.open([(sealed(at: clock.now.addingTimeInterval(301)), .signInPassword)], in: context, on: "auth.requests") == .refused)
        let other = SealContext(requestId: "q-other", email: "ada@example.com", replyKey: "key:ada")
        #expect(try opener.open([(sealed(at: clock.now.addingTimeInterval(-600)), .signInPassword)], in: other, on: "auth.requests") == .refused)
        #expect(try opener.open([(sealed(at: clock.now.addingTimeInterval(-299)), .signInPassword)], in: context, on: "auth.requests")
            == .opened(["ada password"]))
        #expect(skews.withLock { $0 } == [600, -301])
    }

    @Test func aRequestIdThatUsedOtherSealsIsRefused() throws {
        #expect(try opener.open([(sealed("first"), .signInPassword)], in: context, on: "auth.requests") == .opened(["first"]))
        #expect(try opener.open([(sealed("second"), .signInPassword)], in: context, on: "auth.requests") == .refused)
        let change = SealContext(requestId: "q-3", email: "ada@example.com", replyKey: "key:ada")
        let old = (sealed("old", .reauthentication, change), SealedSecret.Purpose.reauthentication)
        #expect(try opener.open([old, (sealed("new", .newPassword, change), .newPassword)], in: change, on: "auth.requests") == .opened(["old", "new"]))
        #expect(try opener.open([old, (sealed("other new", .newPassword, change), .newPassword)], in: change, on: "auth.requests")
            == .refused, "one seal swapped")
    }

    @Test func eachRequestTopicHasItsOwnRequestIds() throws {
        #expect(try opener.open([(sealed("first"), .signInPassword)], in: context, on: "auth.requests") == .opened(["first"]))
        let registration = sealed("second", .registrationPassword)
        #expect(try opener.open([(registration, .registrationPassword)], in: context, on: "registration.requests") == .opened(["second"]))
    }

    @Test func whatDoesNotOpenIsUnsealable() throws {
        #expect(try opener.open([("plain", .code)], in: context, on: "auth.requests") == .unsealable)
        #expect(try opener.open([("sealed:not json", .code)], in: context, on: "auth.requests") == .unsealable)
    }

    /// The sweep forgets a claim only once no seal used with it can open again: a seal sealed as far ahead
    /// as the maximum age allows, used at once, is refused as too old before its claim is forgotten.
    @Test func claimsAreForgottenOnlyOnceTheirSealsCannotOpenAgain() throws {
        let ahead = sealed(at: clock.now.addingTimeInterval(300))
        #expect(try opener.open([(ahead, .signInPassword)], in: context, on: "auth.requests") == .opened(["ada password"]))
        clock.advance(by: opener.claimRetention - 1)
        #expect(try opener.forgetExpiredClaims() == 0)
        #expect(try opener.open([(sealed("other"), .signInPassword)], in: context, on: "auth.requests") == .refused, "still claimed")
        clock.advance(by: 2)
        #expect(try opener.forgetExpiredClaims() == 1)
        #expect(try opener.open([(ahead, .signInPassword)], in: context, on: "auth.requests") == .refused, "too old by then")
        #expect(opener.claimRetention == 660, "2 × the maximum age + a minute")
    }
}
