import Domain
@testable import TestSupport
import Testing

/// A dead-lettered request's failure outcome: one per public request topic, keyed by the id read
/// from the body, which need not decode.
@Suite(.tags(.unit)) struct RequestFailureTests {
    @Test(arguments: [
        (Topic.registrationRequests, Event.Kind.registrationFailed, Topic.registrationOutcomes),
        (Topic.codeRequests, .codeRefused, Topic.codeOutcomes),
        (Topic.authRequests, .tokenRefused, Topic.authOutcomes),
        (Topic.accountRequests, .accountChangeFailed, Topic.accountOutcomes),
    ])
    func eachRequestTopicHasItsFailure(topic: String, kind: Event.Kind, outcomes: String) throws {
        let failure = try #require(RequestFailure.outcome(ofRequestOn: topic, id: "req-1", message: "why"))
        #expect(failure.kind == kind)
        #expect(failure.topic == outcomes)
        #expect(failure.key == "req-1")
        let decoded = try EventCodec.decode(EventCodec.encode(failure))
        #expect(EventCodec.encode(decoded) == EventCodec.encode(failure))
        #expect(String(decoding: EventCodec.encode(failure), as: UTF8.self).contains("\"reason\":\"request_invalid\""))
    }

    @Test func noFailureForTopicsThatTakeNoRequestsOrIdsThatKeyNothing() {
        #expect(RequestFailure.outcome(ofRequestOn: Topic.imageCommands, id: "req-1", message: "") == nil)
        #expect(RequestFailure.outcome(ofRequestOn: Topic.authRequests, id: "", message: "") == nil)
        #expect(RequestFailure.outcome(ofRequestOn: Topic.authRequests, id: String(repeating: "a", count: 129), message: "") == nil)
    }

    @Test func theIdIsReadFromABodyThatDoesNotDecode() {
        let body = Array(#"{"type":"TokenRequested","version":"1","requestId":"req-7","extra":true}"#.utf8)
        #expect(RequestFailure.id(in: body, on: Topic.authRequests) == "req-7")
        let registration = Array(#"{"registrationId":"reg-7"}"#.utf8)
        #expect(RequestFailure.id(in: registration, on: Topic.registrationRequests) == "reg-7")
        #expect(RequestFailure.id(in: registration, on: Topic.authRequests) == nil)
        #expect(RequestFailure.id(in: Array("not json".utf8), on: Topic.authRequests) == nil)
        #expect(RequestFailure.id(in: Array(#"{"requestId":7}"#.utf8), on: Topic.authRequests) == nil)
        let huge = Array(#"{"requestId":"big","pad":""#.utf8) + [UInt8](repeating: 0x61, count: 2 * ContractLimits.messageBytes) + Array(#""}"#.utf8)
        #expect(RequestFailure.id(in: huge, on: Topic.authRequests) == nil, "past twice the limit the body is not parsed")
    }
}
