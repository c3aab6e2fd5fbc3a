@testable import Domain
import Foundation
@testable import TestSupport
import Testing

/// The code, sign-in and account-change events round-trip, are keyed by their request id and go to their topics.
@Suite(.tags(.unit)) struct FlowEventCodecTests {
    static let samples: [(Event, String)] = [
        (.codeRequested(CodeRequested(requestId: "q", email: "a@example.com", purpose: .resetPassword)), Topic.codeRequests),
        (.codeRefused(CodeRefused(requestId: "q", reason: .codeRateLimited, message: "wait", retryAfter: 42)), Topic.codeOutcomes),
        (.tokenRequested(TokenRequested(requestId: "q", grantType: .refreshToken, email: nil, sealedCredential: "c2Vh", replyKey: "a2V5")),
         Topic.authRequests),
        (.tokenIssued(TokenIssued(requestId: "q", sealedTokens: "dG9r", expiresIn: 900, accountCreated: true)), Topic.authOutcomes),
        (.emailChangeRequested(EmailChangeRequested(requestId: "q", email: "a@example.com", sealedPassword: "cA==",
                                                    newEmail: "b@example.com", sealedCode: "Yw==", replyKey: "a2V5")), Topic.accountRequests),
        (.updateProfileEmail(ProfileEmail(requestId: "q", uid: "u", email: "b@example.com", step: "awaiting_profile", revision: 4)), Topic.profileCommands),
        (.profileEmailUpdated(ProfileEmail(requestId: "q", uid: "u", email: "b@example.com", step: "awaiting_profile", revision: 4)), Topic.accountReplies),
        (.accountChangeCompleted(AccountChangeCompleted(requestId: "q", change: .changeEmail)), Topic.accountOutcomes),
    ]

    @Test(arguments: samples)
    func roundTrips(event: Event, topic: String) throws {
        let bytes = EventCodec.encode(event)
        #expect(try EventCodec.decode(bytes) == event)
        let object = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
        #expect(object?["requestId"] as? String == event.key)
        #expect(event.topic == topic)
    }

    @Test func everyInputTopicHasADeadLetterTopic() {
        let names = Set(Topic.all.map(\.name))
        for topic in Topic.inputs { #expect(names.contains(topic) && names.contains(Topic.deadLetters(of: topic))) }
    }
}
