import Domain
import Foundation
import PasswordQuality
@testable import TestSupport
import Testing

/// zxcvbn's guess estimate beside libpwquality's dictionary: the passwords the dictionary let through (issue 22) are
/// refused, long passphrases are not.
@Suite(.tags(.unit)) struct CommonPasswordsTests {
    let passwords: CommonPasswords

    init() throws { passwords = try CommonPasswords() }

    /// libpwquality's dictionary check took each (issue 22); zxcvbn estimates each below 10^8 guesses.
    @Test(arguments: ["password1234", "P@ssw0rd", "P@ssword1", "Welcome2024", "Summer2024", "Winter2023!"])
    func passwordsTheDictionaryTookAreRefused(password: String) {
        #expect(passwords.estimate.bits(password) < passwords.estimate.minimumBits)
        #expect(passwords.isCommon(password))
        #expect(RegistrationRules(blocklist: passwords).validate(password: password, email: "ada@example.com")?.reason == .passwordTooCommon)
    }

    @Test(arguments: ["correct horse battery staple", "tram7 violet kettle", "my good passphrase", "another private password",
                      "Correct-Horse-9", "zx4vq9ltrw"])
    func longPassphrasesAndRandomStringsAreAccepted(password: String) {
        #expect(!passwords.isCommon(password), "\(password): \(passwords.estimate.bits(password)) bits")
    }

    /// The chaos run's passwords: the phrase and the registration id, for hundreds of ids, all accepted.
    @Test func theChaosWorkloadsPasswordsAreAccepted() {
        let refused = (0..<400).map { index in
            "purple elephant dances quietly chaos-\(index)-\(UUID().uuidString.prefix(8).lowercased())"
        }.filter(passwords.isCommon)
        #expect(refused.isEmpty, "\(refused.prefix(3))")
    }

    /// A password made of the account's own email is guessed first.
    @Test func aPasswordOfTheEmailsWordsIsRefused() {
        let rules = RegistrationRules(blocklist: passwords)
        #expect(rules.validate(password: "lovelace.analytical", email: "lovelace@analytical.example")?.reason == .passwordTooCommon)
        #expect(rules.validate(password: "tram7 violet kettle", email: "lovelace@analytical.example") == nil)
    }
}
