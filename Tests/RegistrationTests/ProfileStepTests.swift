import Domain
import Registration
@testable import TestSupport
import Testing

/// The profile worker's step on a SQLite profile store: written, refused and deleted profiles.
@Suite(.tags(.unit)) struct ProfileStepTests {
    let profiles = TemporaryProfileStore()
    var step: ProfileStep { ProfileStep(profiles: profiles) }
    let profile = Profile(name: "Ada", email: "ada@example.com", profileImage: "memory://i.jpg", isMapLocationEnabled: true)

    func write(_ profile: Profile) -> Event { .writeProfile(WriteProfile(registrationId: "r-1", uid: "u-1", profile: profile, step: "awaiting_profile", revision: 2)) }

    func rejected(_ events: [Event]) -> ReasonCode? {
        guard case .profileRejected(let rejected) = events.first, events.count == 1 else { return nil }
        return rejected.reason
    }

    @Test func aProfileIsWrittenOnceHoweverOftenItIsDelivered() throws {
        let written = Event.profileWritten(ProfileWritten(registrationId: "r-1", uid: "u-1"))
        #expect(try step.handle(write(profile)) == [written])
        #expect(try step.handle(write(profile)) == [written])
        #expect(try profiles.profiles() == [StoredProfile(uid: "u-1", profile: profile)])
    }

    @Test func anInvalidProfileIsRejectedUnwritten() throws {
        var nameless = profile
        nameless.name = ""
        var imageless = profile
        imageless.profileImage = ""
        #expect(rejected(try step.handle(write(nameless))) == .nameEmpty)
        #expect(rejected(try step.handle(write(imageless))) == .profileInvalid)
        #expect(try profiles.profiles().isEmpty)
    }

    @Test func aStoreRefusingTheProfileRejectsItAndATransientFailureIsThrown() throws {
        profiles.writes.arm(StoreError(.permanent, "refused"), times: 1)
        #expect(rejected(try step.handle(write(profile))) == .profileStoreRejected)
        profiles.writes.arm(StoreError(.transient, "busy"), times: 1)
        #expect(throws: StoreError.self) { try step.handle(write(profile)) }
        #expect(try profiles.profiles().isEmpty)
    }

    @Test func aDeleteIsIdempotent() throws {
        _ = try step.handle(write(profile))
        let delete = Event.deleteProfile(DeleteProfile(registrationId: "r-1", uid: "u-1", step: "compensating", revision: 3))
        let deleted = Event.profileDeleted(ProfileDeleted(registrationId: "r-1", uid: "u-1"))
        #expect(try step.handle(delete) == [deleted])
        #expect(try step.handle(delete) == [deleted])
        #expect(try profiles.profiles().isEmpty)
    }

    /// A replayed command older than the last one applied to the uid — the write compensation deleted, or the
    /// compensation's delete after a later write — is refused `stale_command` and changes nothing.
    @Test func aCommandOlderThanTheLastAppliedIsRefusedAsStale() throws {
        _ = try step.handle(write(profile))
        let delete = Event.deleteProfile(DeleteProfile(registrationId: "r-1", uid: "u-1", step: "compensating", revision: 3))
        _ = try step.handle(delete)
        let replayedWrite = #expect(throws: UntrustedEvent.self) { try step.handle(write(profile)) }
        #expect(replayedWrite?.reason == .staleCommand)
        #expect(try profiles.profiles().isEmpty, "the deleted profile came back")
        let later = Event.writeProfile(WriteProfile(registrationId: "r-2", uid: "u-1", profile: profile, step: "awaiting_profile", revision: 4))
        _ = try step.handle(later)
        let replayedDelete = #expect(throws: UntrustedEvent.self) { try step.handle(delete) }
        #expect(replayedDelete?.reason == .staleCommand)
        #expect(try profiles.profiles() == [StoredProfile(uid: "u-1", profile: profile)], "the later write was undone")
    }
}
