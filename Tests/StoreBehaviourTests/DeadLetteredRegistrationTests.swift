import Domain
import Foundation
import Registration
@testable import TestSupport
import Testing

/// A dead-lettered registration request is answered once: with its failure, recorded as a failed saga
/// so that a replay of the request gets the same failure, or with the outcome of a saga that exists.
@Suite(.tags(.production)) struct DeadLetteredRegistrationTests {
    static let failure = RequestFailure.outcome(ofRequestOn: Topic.registrationRequests, id: "r1", message: "dead-lettered (test)")!
    static let request = Event.registrationRequested(RegistrationRequested(
        registrationId: "r1", email: "ada@example.com", name: "Ada", sealedPassword: "c2VhbGVk", sealedCode: nil, replyKey: "a2V5", avatar: nil,
        isMapLocationEnabled: false))

    @Test(arguments: StoreBackend.databases)
    func theFailureIsRecordedAndAReplayIsAnsweredTheSame(backend: StoreBackend) throws {
        try backend.withAccountStore { (store) throws in
            let coordinator = RegistrationCoordinator(accounts: store, vault: NoVault(),
                                                      seals: SealOpener(vault: NoVault(), ledger: TemporarySealLedger()), mailbox: NoMailbox())
            #expect(try coordinator.answer(deadLettered: Self.failure) == [Self.failure])
            #expect(try coordinator.handle(Self.request) == [Self.failure], "a replay starts no registration")
            #expect(try store.accounts().isEmpty)
            #expect(try coordinator.answer(deadLettered: Self.failure) == [Self.failure])
        }
    }

    @Test(arguments: StoreBackend.databases)
    func aRegistrationThatHasAnOutcomeKeepsIt(backend: StoreBackend) throws {
        try backend.withAccountStore { (store) throws in
            let saga = sagaRecord("r1", stage: .completed)
            _ = try store.start(saga, account: pendingAccount(for: saga))
            let coordinator = RegistrationCoordinator(accounts: store, vault: NoVault(),
                                                      seals: SealOpener(vault: NoVault(), ledger: TemporarySealLedger()), mailbox: NoMailbox())
            let answer = try coordinator.answer(deadLettered: Self.failure)
            #expect(answer.map(\.kind) == [.registrationCompleted])
        }
    }

    /// Proves nothing: these tests never reach a code.
    struct NoMailbox: MailboxProof {
        func accepts(registerCode code: String, email: String, requestId: String, replyKey: String, at now: Date) throws -> Bool { false }
    }

    /// Opens nothing: these tests never reach a password.
    struct NoVault: PasswordVault {
        func unseal(_ sealedBase64: String) -> String? { nil }
        func hash(_ password: String) throws -> String { "" }
        func digest(_ bytes: [UInt8]) -> String { "" }
        func seal(_ plaintext: String, to publicKey: String) -> String? { nil }
        func isPublicKey(_ publicKey: String) -> Bool { false }
    }
}
