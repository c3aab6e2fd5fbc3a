import Foundation
import Support
@testable import TestSupport
import Testing

/// Secrets come from a file, standard input or a prompt; one given on the command line is refused without
/// being repeated.
@Suite(.tags(.unit)) struct SecretInputTests {
    let password = SecretOption("password", "password")
    let code = SecretOption("code", "one-time code")
    var spec: CommandSpec { CommandSpec(name: "tool", summary: "test", options: [.value("email", "")] + password.options + code.options) }
    let canary = "Canary-Secret-7f3a"

    @Test func aSecretOnTheCommandLineIsRefusedWithoutBeingRepeated() {
        for arguments in [["--password", canary], ["--password=\(canary)"], ["--email", "a@example.com", "--code", canary]] {
            let error = #expect(throws: UsageError.self) { try ParsedArguments(arguments, spec: spec, environment: [:]) }
            guard case .invalid(let problem, let help)? = error else { Issue.record("not refused: \(arguments)"); continue }
            let name = arguments.contains("--code") ? "code" : "password"
            #expect(problem.hasPrefix("--\(name) is refused") && problem.contains("--\(name)-file FILE") && problem.contains("standard input"))
            #expect(!problem.contains(canary) && !help.contains(canary))
        }
        // The help names the file options only.
        #expect(spec.helpText.contains("--password-file") && !spec.helpText.contains("--password <value>"))
    }

    @Test func readsFilesFirstThenLinesOfStandardInputInOrder() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("secret-\(UUID().uuidString)").path
        try "from a file\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let both = try ParsedArguments([], spec: spec, environment: [:])
        #expect(try SecretInput(lines: ["first", "second"]).read([password, code], from: both) == ["first", "second"])
        let withFile = try ParsedArguments(["--password-file", path], spec: spec, environment: [:])
        #expect(try SecretInput(lines: ["the code"]).read([password, code], from: withFile) == ["from a file", "the code"])
    }

    @Test func aMissingSecretSaysHowToGiveIt() throws {
        let parsed = try ParsedArguments([], spec: spec, environment: [:])
        let error = #expect(throws: UsageError.self) { try SecretInput(lines: ["only one"]).read([password, code], from: parsed) }
        guard case .invalid(let problem, _)? = error else { return }
        #expect(problem == "no one-time code: give --code-file FILE, a line on standard input, or type it at the prompt")
        #expect(throws: UsageError.self) { try SecretInput(lines: [""]).read([password], from: parsed) }
        let unreadable = try ParsedArguments(["--password-file", "/nonexistent/secret"], spec: spec, environment: [:])
        #expect(throws: UsageError.self) { try SecretInput(lines: []).read([password], from: unreadable) }
    }
}
