import AccountChanges
import Domain
import Registration
@testable import TestSupport
import Testing

/// The profile worker's part of the profile update saga on a SQLite profile store: the fields set (only those
/// given), never a profile the login guard refuses, an older command refused as stale, the heartbeat while it waits.
@Suite(.tags(.unit)) struct ProfileFieldsStepTests {
    let profiles = TemporaryProfileStore()
    var step: ProfileFieldsStep { ProfileFieldsStep(profiles: profiles) }
    let profile = Profile(name: "Ada", email: "ada@example.com", profileImage: "memory://old.jpg", isMapLocationEnabled: false)

    func update(_ fields: ProfileFields, revision: Int = 5) -> ProfileFieldsUpdate {
        ProfileFieldsUpdate(requestId: "p-1", uid: "u-1", fields: fields, step: "updating_profile", revision: revision)
    }

    func rejected(_ events: [Event]) -> ReasonCode? {
        guard case .profileUpdateRejected(let rejected) = events.first, events.count == 1 else { return nil }
        return rejected.reason
    }

    @Test func theGivenFieldsAreSetAndTheOthersKept() throws {
        try profiles.write(profile, uid: "u-1", revision: 1)
        let command = update(ProfileFields(name: "Ada L", profileImage: "memory://new.jpg"))
        #expect(try step.handle(.updateProfile(command)) == [.profileUpdateApplied(command)])
        #expect(try step.handle(.updateProfile(command)) == [.profileUpdateApplied(command)], "a redelivery answers the same")
        #expect(try profiles.profile(uid: "u-1") == Profile(name: "Ada L", email: "ada@example.com", profileImage: "memory://new.jpg",
                                                           isMapLocationEnabled: false))
        #expect(step.heartbeat(of: .updateProfile(command)) == [.profileUpdateWaiting(ProfileUpdateWaiting(requestId: "p-1", uid: "u-1",
                                                                                                          step: "updating_profile"))])
    }

    @Test func aProfileTheLoginGuardWouldRefuseIsNeverWritten() throws {
        try profiles.write(profile, uid: "u-1", revision: 1)
        #expect(rejected(try step.handle(.updateProfile(update(ProfileFields(name: "  "))))) == .nameEmpty)
        #expect(rejected(try step.handle(.updateProfile(update(ProfileFields(profileImage: ""))))) == .profileInvalid)
        #expect(rejected(try step.handle(.updateProfile(ProfileFieldsUpdate(requestId: "p-2", uid: "nobody", fields: ProfileFields(name: "X"),
                                                                            step: "updating_profile", revision: 5)))) == .profileInvalid)
        #expect(try profiles.profile(uid: "u-1") == profile)
    }

    @Test func anOlderCommandThanTheLastAppliedIsRefusedAsStale() throws {
        try profiles.write(profile, uid: "u-1", revision: 1)
        let restore = update(ProfileFields(name: "Ada"), revision: 7)
        #expect(try step.handle(.updateProfile(restore)) == [.profileUpdateApplied(restore)])
        #expect(throws: UntrustedEvent.self) { try step.handle(.updateProfile(update(ProfileFields(name: "Late"), revision: 5))) }
        #expect(try profiles.profile(uid: "u-1")?.name == "Ada")
    }
}
