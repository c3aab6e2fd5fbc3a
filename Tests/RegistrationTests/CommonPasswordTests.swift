import Domain
import Registration
@testable import TestSupport
import Testing

extension RegistrationCoordinatorTests {
    /// Registration checks the new password against the blocklist its rules carry.
    @Test(arguments: FakeBlocklist.common.sorted())
    func aCommonPasswordIsRefusedAtRegistration(password: String) throws {
        let coordinator = RegistrationCoordinator(accounts: accounts, vault: FakeVault(), seals: coordinator.seals, mailbox: mailbox,
                                                  rules: RegistrationRules(blocklist: FakeBlocklist()), clock: clock.closure)
        #expect(failure(try coordinator.handle(request(password: password))) == .passwordTooCommon)
        #expect(try accounts.account(email: "ada@example.com") == nil)
        #expect(failure(try coordinator.handle(request("r-2"))) == nil, "a long passphrase is accepted")
    }
}
