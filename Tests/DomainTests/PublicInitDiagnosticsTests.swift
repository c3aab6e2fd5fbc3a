import Foundation
import Support
@testable import TestSupport
import Testing

/// What `@PublicInit` cannot pass on as it is, the compiler says where it is used: the macro plugin of this build,
/// loaded by `swiftc -typecheck` into a file of such structs, is read for each error at its line.
@Suite(.tags(.unit)) struct PublicInitDiagnosticsTests {
    static let declaration = """
        @attached(member, names: named(init))
        public macro PublicInit() = #externalMacro(module: "MemberwiseInit", type: "PublicInitMacro")
        @propertyWrapper struct Wrapper { var wrappedValue: Int }
        """

    /// The compiler's error lines on `source` (after the declaration, from line 4), or none.
    func errors(in source: String) async throws -> [String] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("public-init-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("Sample.swift")
        try (Self.declaration + "\n" + source + "\n").write(to: file, atomically: true, encoding: .utf8)
        let swiftc = try ChildProcess("/usr/bin/env", [
            "swiftc", "-typecheck", "-load-plugin-executable", Binaries.path("MemberwiseInit-tool") + "#MemberwiseInit", file.path,
        ], output: .captured, errors: .standardOutput)
        var lines: [String] = []
        while let line = await swiftc.nextLine() { lines.append(line) }
        _ = await swiftc.waitForExit()
        return lines.filter { $0.hasPrefix(file.path) && $0.contains("error:") }.map { String($0.dropFirst(file.path.count)) }
    }

    @Test func whatItCannotPassOnIsAnErrorWhereItIsUsed() async throws {
        let found = try await errors(in: """
            @PublicInit struct Hidden { private var secret: Int }
            @PublicInit struct Wrapped { @Wrapper var count: Int }
            @PublicInit struct Pattern { var (a, b): (Int, Int) }
            @PublicInit class Object { var value: Int = 0 }
            @PublicInit struct Untyped { var guess = 1 }
            @PublicInit struct Borrowing { var label = "x", count: Int }
            """)
        #expect(found.contains { $0.hasPrefix(":4:") && $0.contains("would make the private 'secret' public") }, "\(found)")
        #expect(found.contains { $0.hasPrefix(":5:") && $0.contains("cannot tell whether @Wrapper wraps 'count'") }, "\(found)")
        #expect(found.contains { $0.hasPrefix(":6:") && $0.contains("one name per stored property") }, "\(found)")
        #expect(found.contains { $0.hasPrefix(":7:") && $0.contains("applies to a struct") }, "\(found)")
        #expect(found.contains { $0.hasPrefix(":8:") && $0.contains("needs the type of 'guess' written out") }, "\(found)")
        #expect(found.contains { $0.hasPrefix(":9:") && $0.contains("needs the type of 'label' written out") }, "\(found)")
    }

    @Test func aStructItCanServeTypeChecks() async throws {
        #expect(try await errors(in: """
            @PublicInit struct Fine { var a, b: Int; var note: String? = nil; let tag: String?; private(set) var count: Int; let fixed = 7 }
            let fine = Fine(a: 1, b: 2, tag: nil, count: 3)
            """) == [])
    }
}
