import Foundation
import Testing
@testable import TestSupport

/// The flows are siblings on the account core (`Accounts`): no flow module imports another or depends on one in
/// `Package.swift`, and the adapters (stores, crypto, imaging, the client library, the gateway, the console) import the
/// contract and the core, never a flow. Only the composition roots (`WorkerAssembly`, `DevTools`, the executables) and
/// the tests see the flows.
@Suite(.tags(.unit)) struct FlowBoundaryTests {
    static let flows: Set<String> = ["Registration", "Verification", "SignIn", "AccountChanges"]
    static let adapters = [
        "SQLStores", "S3Store", "SMTPCourier", "CryptoAdapters", "Imaging",
        "RegistrarClient", "Gateway", "Console", "Backends", "Accounts",
    ]

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The modules the Swift files under `Sources/<module>` import (plain, with attributes such as `@testable`, with an
    /// access level such as `internal import`, or a declaration of one such as `import struct X.Y`).
    static func imports(of module: String) throws -> Set<String> {
        let directory = root.appendingPathComponent("Sources/\(module)")
        let files = try #require(FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil))
        var imported: Set<String> = []
        for case let file as URL in files where file.pathExtension == "swift" {
            for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
                if let name = importedModule(line) { imported.insert(name) }
            }
        }
        return imported
    }

    static let accessLevels: Set<Substring> = ["public", "package", "internal", "fileprivate", "private"]
    static let declarationKinds: Set<Substring> = ["struct", "class", "enum", "protocol", "typealias", "func", "var", "let"]

    /// The module an `import` line names, else nil.
    static func importedModule(_ line: Substring) -> String? {
        var words = line.split(separator: " ").drop { $0.hasPrefix("@") || accessLevels.contains($0) }
        guard words.first == "import" else { return nil }
        words = words.dropFirst().drop { declarationKinds.contains($0) }
        return words.first.map { String($0.split(separator: ".")[0]) }
    }

    @Test func everyFormOfImportIsRead() {
        for line in ["import SignIn", "@testable import SignIn", "internal import SignIn", "@preconcurrency public import SignIn",
                     "import struct SignIn.TokenIssuer"] {
            #expect(Self.importedModule(line[...]) == "SignIn", "\(line)")
        }
        #expect(Self.importedModule("/// import SignIn"[...]) == nil)
    }

    /// The dependencies `Package.swift` gives the target `module`.
    static func dependencies(of module: String) throws -> Set<String> {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let start = try #require(manifest.range(of: ".target(name: \"\(module)\", dependencies: ["))
        let end = try #require(manifest[start.upperBound...].firstIndex(of: "]"))
        return Set(manifest[start.upperBound..<end].split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines.union(["\""])) })
    }

    @Test(arguments: flows.sorted()) func aFlowSeesNoOtherFlow(_ flow: String) throws {
        #expect(try Self.imports(of: flow).intersection(Self.flows.subtracting([flow])) == [])
        #expect(try Self.dependencies(of: flow).intersection(Self.flows) == [])
        #expect(try Self.dependencies(of: flow).contains("Accounts"))
    }

    @Test(arguments: adapters) func anAdapterSeesNoFlow(_ adapter: String) throws {
        #expect(try Self.imports(of: adapter).intersection(Self.flows) == [])
        #expect(try Self.dependencies(of: adapter).intersection(Self.flows) == [])
    }
}
