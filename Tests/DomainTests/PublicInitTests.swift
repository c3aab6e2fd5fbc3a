import Domain
import Foundation
@testable import TestSupport
import Testing

/// `@PublicInit` gives a struct the memberwise initialiser Swift would, but public: a parameter per stored property in
/// declaration order, its declared default kept (an optional without one must be passed); computed properties, statics
/// and constants with a value are no parameter. And a sealed answer carries its type's purpose beside its fields, checked when opened.
@Suite(.tags(.unit)) struct PublicInitTests {
    @PublicInit
    struct Sample: Equatable {
        static let kind = "sample"
        let fixed = 7
        var name: String
        var count: Int = 3
        var note: String? = nil
        let tag: String?
        var first, second: Int
        var observed: Int { didSet { changes += 1 } }
        var changes: Int = 0
        var doubled: Int { count * 2 }
    }

    @Test func everyStoredPropertyIsAParameterInOrderWithItsDefault() {
        let sample = Sample(name: "a", tag: nil, first: 1, second: 2, observed: 1)
        #expect(sample.name == "a" && sample.count == 3 && sample.note == nil && sample.tag == nil)
        #expect(sample.observed == 1 && sample.changes == 0 && sample.fixed == 7 && sample.doubled == 6)
        #expect(sample.first == 1 && sample.second == 2)
        let full = Sample(name: "b", count: 5, note: "n", tag: "t", first: 3, second: 4, observed: 2, changes: 1)
        #expect(full.count == 5 && full.note == "n" && full.tag == "t" && full.changes == 1)
    }

    @Test func anEventBuiltByItEncodesAsTheContractSays() throws {
        let issued = TokenIssued(requestId: "r", sealedTokens: "s", expiresIn: 60, accountCreated: false)
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(issued)) as? [String: Any]
        #expect(json?["tokenType"] as? String == "Bearer", "the declared default")
        #expect(Set(json?.keys.map { $0 } ?? []) == ["requestId", "sealedTokens", "tokenType", "expiresIn", "accountCreated"])
    }

    @Test func aSealedAnswerNamesItsPurposeAndOpensOnlyAsItsOwnType() throws {
        let list = SessionList(requestId: "q", uid: "u", sessions: [])
        let json = Array(list.sealedJSON.utf8)
        #expect(list.sealedJSON == #"{"purpose":"sessions","requestId":"q","sessions":[],"uid":"u"}"#)
        #expect(SessionList.opened(from: json, answering: "q") == list)
        #expect(SessionList.opened(from: json, answering: "other") == nil, "another request's answer")
        let view = ProfileView(requestId: "q", uid: "u", name: "a", email: "r", profileImage: "i", isMapLocationEnabled: true)
        #expect(ProfileView.opened(from: Array(view.sealedJSON.utf8), answering: "q") == view)
        let relabelled = view.sealedJSON.replacingOccurrences(of: #""purpose":"profile""#, with: #""purpose":"sessions""#)
        #expect(ProfileView.opened(from: Array(relabelled.utf8), answering: "q") == nil, "a payload naming another purpose")
        let unlabelled = view.sealedJSON.replacingOccurrences(of: #""purpose":"profile","#, with: "")
        #expect(ProfileView.opened(from: Array(unlabelled.utf8), answering: "q") == nil, "a payload naming no purpose")
    }
}
