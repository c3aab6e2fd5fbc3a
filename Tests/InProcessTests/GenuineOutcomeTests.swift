import Crypto
import Domain
import Foundation
import RegistrarClient
import SignIn
@testable import TestSupport
import Testing

/// Issue 21 points 1 and 9 in process (the same bodies run on the real binaries in `AdversarialTests`): a client
/// takes only genuine outcomes, sealed answers open only for the request they name, and a request id reused with
/// another reply key gives nothing away.
@Suite(.tags(.inProcess)) struct GenuineOutcomeTests {
    @Test func forgedOutcomesReachNoClient() async throws {
        try await InProcessSystem.with { try await Attacks.forgedOutcomesReachNoClient(on: $0) }
    }

    @Test func aRequestIdReusedWithAnotherReplyKeyOpensNothingAndRevokesTheFamily() async throws {
        try await InProcessSystem.with { try await Attacks.aRequestIdReusedWithAnotherReplyKeyOpensNothingAndRevokesTheFamily(on: $0) }
    }

    /// Each request's reply key pair is derived from the secret and the request id: the same on any holder of the
    /// secret, another for another request or secret; an answer sealed for one request, or naming another request or
    /// purpose, does not open as another's.
    @Test func sealedAnswersOpenOnlyAsTheAnswerTheyName() throws {
        let secret = ReplySecret.generate()
        #expect(secret.replyKey(for: "a") == secret.replyKey(for: "a") && secret.replyKey(for: "a") != secret.replyKey(for: "b"))
        #expect(secret.replyKey(for: "a") != ReplySecret.generate().replyKey(for: "a"))
        func sealed(_ pair: TokenPair, to id: String) -> String {
            Data(secret.keyPair(for: id).publicKey.seal(Array(pair.sealedJSON.utf8))).base64EncodedString()
        }
        let pair = TokenPair(requestId: "a", uid: "u", accessToken: "t", refreshToken: "r")
        #expect(try secret.open(sealed(pair, to: "a"), as: TokenPair.self, answering: "a") == pair)
        #expect(throws: NotOurAnswer.self, "sealed to another request's key") { try secret.open(sealed(pair, to: "b"), as: TokenPair.self, answering: "a") }
        var moved = pair
        moved.requestId = "b"
        #expect(throws: NotOurAnswer.self, "naming another request") { try secret.open(sealed(moved, to: "a"), as: TokenPair.self, answering: "a") }
        let profile = ProfileView(requestId: "a", uid: "u", profile: Profile(name: "n", email: "e", profileImage: "i", isMapLocationEnabled: false))
        let sealedProfile = Data(secret.keyPair(for: "a").publicKey.seal(Array(profile.sealedJSON.utf8))).base64EncodedString()
        #expect(throws: NotOurAnswer.self, "of another purpose") { try secret.open(sealedProfile, as: TokenPair.self, answering: "a") }
    }
}
