@testable import Domain
@testable import TestSupport
import Testing

@Suite(.tags(.unit)) struct ValidationTests {
    let rules = RegistrationRules()

    @Test func acceptsATypicalRegistration() {
        #expect(rules.validate(name: "  Ada Lovelace ") == nil)
        #expect(rules.validate(email: " Ada@Example.COM ") == nil)
        #expect(rules.validate(password: "correct horse", email: "ada@example.com") == nil)
    }

    @Test(arguments: [("", ReasonCode.nameEmpty), ("   ", .nameEmpty), (String(repeating: "n", count: 31), .nameTooLong)])
    func refusesNames(name: String, reason: ReasonCode) {
        #expect(rules.validate(name: name)?.reason == reason)
    }

    @Test func acceptsThirtyCharacterNamesAfterTrimming() {
        #expect(rules.validate(name: " " + String(repeating: "é", count: 30) + " ") == nil)
    }

    @Test(arguments: ["plain", "a@b", "@example.com", "a@.com", "a..b@example.com", "a@exa mple.com",
                      ".a@example.com", "a@-example.com", "a@example.c0m", "a@@example.com"])
    func refusesMalformedEmails(email: String) {
        #expect(rules.validate(email: email)?.reason == .emailInvalid)
    }

    @Test func refusesEmailsLongerThan254() {
        let email = String(repeating: "a", count: 64) + "@" + String(repeating: "b", count: 190) + ".com"
        #expect(rules.validate(email: email)?.reason == .emailTooLong)
    }

    @Test func normalisesEmails() {
        #expect(RegistrationRules.normalizedEmail("  MiXeD@Example.Com\n") == "mixed@example.com")
    }

    @Test func passwordRules() {
        #expect(rules.validate(password: "short", email: "a@example.com")?.reason == .passwordTooShort)
        #expect(rules.validate(password: String(repeating: "p", count: 129), email: "a@example.com")?.reason == .passwordTooLong)
        #expect(rules.validate(password: "A@Example.com", email: "a@example.com")?.reason == .passwordEqualsEmail)
        #expect(RegistrationRules(minimumPasswordLength: 6).validate(password: "sixsix", email: "a@example.com") == nil)
    }

    @Test func registrationIds() {
        #expect(RegistrationRequest.validateId("3f1c2a9e-0b7d-4c1e-9a8b-123456789abc") == nil)
        #expect(RegistrationRequest.validateId("")?.reason == .registrationIdInvalid)
        #expect(RegistrationRequest.validateId("has space")?.reason == .registrationIdInvalid)
        #expect(RegistrationRequest.validateId("..")?.reason == .registrationIdInvalid)
        #expect(RegistrationRequest.validateId(".hidden")?.reason == .registrationIdInvalid)
        #expect(RegistrationRequest.validateId(String(repeating: "x", count: 129))?.reason == .registrationIdInvalid)
    }
}
