import Foundation
import Domain
import PasswordQuality
@testable import TestSupport
import Testing

/// libpwquality's dictionary check, without composition rules.
@Suite(.tags(.unit)) struct DictionaryBlocklistTests {
    let blocklist: DictionaryBlocklist

    init() throws { blocklist = try DictionaryBlocklist() }

    @Test(arguments: ["password", "12345678", "qwertyuiop", "Password1", "abcdefgh", "iloveyou"])
    func commonPasswordsAreRefused(password: String) {
        #expect(blocklist.isCommon(password))
    }

    /// No composition rules: lower-case words alone, or digits and letters without capitals, are fine.
    @Test(arguments: ["correct horse battery staple", "purple elephant dances quietly", "tram7 violet kettle", "zx4vq9ltrw"])
    func uncommonPasswordsAreAccepted(password: String) {
        #expect(!blocklist.isCommon(password))
    }

    @Test func registrationRulesRefuseACommonPasswordWithItsReason() {
        let rules = RegistrationRules(blocklist: blocklist)
        #expect(rules.validate(password: "password", email: "ada@example.com")?.reason == .passwordTooCommon)
        #expect(rules.validate(password: "correct horse battery staple", email: "ada@example.com") == nil)
    }

    /// A missing dictionary would refuse every password: the blocklist (and so the account worker) does not start.
    @Test func aMissingDictionaryIsRefusedAtStart() {
        #expect(throws: BlocklistError.self) { try DictionaryBlocklist(dictionary: "/nonexistent/cracklib_dict") }
    }
}

/// The dictionary kept open gives libpwquality's own verdicts (which open the dictionary on every call).
@Suite(.tags(.unit)) struct DictionaryVerdictTests {
    /// Dictionary words and their variations (capitals, digits, reversals, padding), palindromes, short and long
    /// passwords, and phrases: each judged by the blocklist and by libpwquality in another process.
    @Test func verdictsAreLibpwqualitysOwn() throws {
        let words = try String(contentsOfFile: "/usr/share/dict/cracklib-small", encoding: .utf8)
            .split(separator: "\n").enumerated().filter { $0.offset % 149 == 0 }.map { String($0.element) }
        var candidates: [String] = []
        for (index, word) in words.enumerated() {
            candidates += [word, word.capitalized, word + "\(index % 100)", String(word.reversed()), "\(word)!\(word)",
                           word.uppercased() + "2024", "x" + word + "q7", word + " " + word]
        }
        candidates += ["racecar", "abcdedcba", "Aa", "p4ssw0rd", "correct horse battery staple", "aaaaaaaa", "qwerty123",
                       String(repeating: "long phrase ", count: 30), "zx4vq9ltrw", "12345678", "ilovemydog", "summer2024"]
        let blocklist = try DictionaryBlocklist()
        let ours = candidates.map { blocklist.isCommon($0) }
        let reference = try Self.libpwqualityVerdicts(candidates)
        #expect(reference.count == candidates.count)
        let differing = zip(candidates, zip(ours, reference)).filter { $1.0 != $1.1 }.map(\.0)
        #expect(differing.isEmpty, "different verdicts: \(differing)")
        #expect(ours.contains(true) && ours.contains(false))
    }

    private static func libpwqualityVerdicts(_ candidates: [String]) throws -> [Bool] {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("reference_verdicts.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(candidates.joined(separator: "\n").utf8 + [10]))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map { $0 == "1" }
    }
}
