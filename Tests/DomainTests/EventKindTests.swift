@testable import Domain
@testable import TestSupport
import Testing

/// Every event kind is a wire type the codec knows.
@Suite(.tags(.unit)) struct EventKindTests {
    @Test(arguments: Event.Kind.allCases)
    func theCodecDecodesEveryKind(kind: Event.Kind) {
        // The type and version only: decoded as that type, so refused for its missing fields (not as unknown).
        let error = #expect(throws: UndecodableMessage.self) {
            try EventCodec.decode(Array(#"{"type":"\#(kind.rawValue)","version":1}"#.utf8))
        }
        #expect(error?.kind == .invalidFields, "\(kind)")
    }
}
