@testable import Gateway
@testable import TestSupport
import Testing

/// RFC 6750 §2.1: `Bearer <b64token>`, the scheme case-insensitive, anything else not a token.
@Suite(.tags(.unit)) struct BearerTokenTests {
    @Test func readsTheTokenOfABearerHeader() {
        #expect(Gateway.bearerToken("Bearer eyJh.eyJz.c2ln") == "eyJh.eyJz.c2ln")
        #expect(Gateway.bearerToken("bearer a-b_c~d+e/f==") == "a-b_c~d+e/f==")
    }

    @Test(arguments: ["Basic dXNlcjpwYXNz", "Bearer", "Bearer ", "Bearer two words", "Bearer =abc", "Bearer tok\u{7F}en", "Bearer tökén",
                      "Bearer " + String(repeating: "a", count: 4097)])
    func refusesAnythingElse(header: String) {
        #expect(Gateway.bearerToken(header) == nil)
    }
}
