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
