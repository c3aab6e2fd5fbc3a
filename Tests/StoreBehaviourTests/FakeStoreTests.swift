import Foundation
@testable import TestSupport
import Testing

/// Every implementation of a store port in the tests is either a fake the contract suites run (a store of
/// `StoreBackend.memory`) or a real store wrapped (`TestSupport/Stores`, or a test's own fault or count around one): a
/// fake a unit test relies on cannot drift from what production's stores do unseen (`Tests/README.md`, Fakes).
@Suite(.tags(.unit)) struct FakeStoreTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The implementations in the tests that wrap a real store, not fakes.
    static let wrappers: Set<String> = [
        // TestSupport/Stores: the SQL or file store in a temporary directory, with faults and look-ups.
        "TemporaryAnswerMemo", "TemporaryCodeStore", "TemporaryObjectStore", "TemporaryProfileStore", "TemporarySealLedger",
        // AvatarStagingTests: a `TemporaryObjectStore` counting reads; CodeDispatchStepTests: a SQL code store failing chosen calls.
        "CountingObjects", "FaultyStore",
    ]

    /// The store ports: the protocols of `Sources` named `…Store`, `…Ledger`, `…Memo` or `Outbox`.
    static func ports() throws -> Set<String> {
        let declaration = try Regex(#"(?:^|\s)protocol\s+(\w+)"#)
        var ports: Set<String> = []
        for line in try lines(under: "Sources") {
            guard let name = line.text.firstMatch(of: declaration)?.output[1].substring.map({ String($0) }) else { continue }
            if ["Store", "Ledger", "Memo"].contains(where: { name.hasSuffix($0) }) || name == "Outbox" { ports.insert(name) }
        }
        return ports
    }

    /// The types of `Tests` declared (or extended) as conforming to one of `ports`, with the file of each.
    static func implementations(of ports: Set<String>) throws -> [String: String] {
        let modifiers = #"(?:(?:public|private|fileprivate|internal|final|open)\s+)*"#
        let declaration = try Regex(#"^\s*"# + modifiers + #"(?:class|struct|actor|enum|extension)\s+(\w+)(?:<[^>]*>)?\s*:([^{]*)"#)
        var found: [String: String] = [:]
        for line in try lines(under: "Tests") {
            guard let match = line.text.firstMatch(of: declaration), let name = match.output[1].substring,
                  let inherited = match.output[2].substring else { continue }
            let conformances = inherited.split(separator: ",").map {
                $0.replacingOccurrences(of: "@unchecked", with: "").trimmingCharacters(in: .whitespaces)
            }
            if conformances.contains(where: ports.contains) { found[String(name)] = line.file }
        }
        return found
    }

    /// Every line of the Swift files under `directory` (of the package), with its file's path in the package.
    static func lines(under directory: String) throws -> [(file: String, text: Substring)] {
        let files = try #require(FileManager.default.enumerator(at: root.appendingPathComponent(directory), includingPropertiesForKeys: nil))
        var lines: [(file: String, text: Substring)] = []
        for case let file as URL in files where file.pathExtension == "swift" {
            let path = String(file.path.dropFirst(root.path.count + 1))
            lines += try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map { (file: path, text: $0) }
        }
        return lines
    }

    @Test func everyStoreOfTheTestsIsAFakeTheContractSuitesRunOrARealOne() throws {
        let ports = try Self.ports()
        #expect(ports.isSuperset(of: ["AccountStore", "AccountChangeStore", "TokenStore", "CodeStore", "SealLedger", "AnswerMemo", "Outbox"]))
        let found = try Self.implementations(of: ports)
        for (name, file) in found.sorted(by: { $0.key < $1.key }) where !StoreBackend.fakes.contains(name) && !Self.wrappers.contains(name) {
            Issue.record("""
                \(name) (\(file)) implements a store port, but the contract suites do not run it: make it a case of StoreBackend.memory \
                and run its port's suite on it, or use the real store (Tests/README.md, Fakes)
                """)
        }
        #expect(StoreBackend.fakes.union(Self.wrappers).subtracting(found.keys).isEmpty, "a store listed here is gone: take it off the list")
    }

    @Test func theMemoryBackendOpensEachFake() throws {
        let opened = try StoreBackend.memory.withNewLocation { (url) throws -> [Any] in
            [try StoreBackend.memory.accountChangeStore(at: url), try StoreBackend.memory.tokenStore(at: url)]
        }
        #expect(Set(opened.map { String(describing: type(of: $0)) }) == StoreBackend.fakes)
    }
}
