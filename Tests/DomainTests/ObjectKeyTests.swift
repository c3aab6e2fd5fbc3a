import Domain
@testable import TestSupport
import Testing

/// The one key rule of every object store: relative paths of plain segments only.
@Suite(.tags(.unit)) struct ObjectKeyTests {
    @Test(arguments: ["ProfileImages/0b7e2c1a-5d1f-4c7e-9f0e-2a3b4c5d6e7f.jpg", "staging/r-1", "a", "a/b.c/d..e"])
    func acceptsPlainKeys(key: String) throws {
        try ObjectKey.validate(key)
    }

    @Test(arguments: ["", "/etc/passwd", "..", ".", "staging/../ProfileImages/x.jpg", "staging/./x", "a//b", "a/",
                      "staging\\x", "staging/x\u{0}", "staging/x\ny", "staging/\u{7f}", "staging/\u{85}x"])
    func refusesKeysThatLeaveTheNamespace(key: String) {
        #expect(throws: StoreError.self) { try ObjectKey.validate(key) }
    }
}
