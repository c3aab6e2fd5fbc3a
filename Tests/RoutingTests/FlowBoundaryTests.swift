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

    /// The modules the Swift files under `Sources/<module>` import (plain, `@testable` or `@_exported`).
    static func imports(of module: String) throws -> Set<String> {
        let directory = root.appendingPathComponent("Sources/\(module)")
        let files = try #require(FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil))
        var imported: Set<String> = []
        for case let file as URL in files where file.pathExtension == "swift" {
            for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
                let words = line.split(separator: " ").filter { !$0.hasPrefix("@") }
                if words.count == 2, words[0] == "import" { imported.insert(String(words[1])) }
            }
        }
        return imported
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
