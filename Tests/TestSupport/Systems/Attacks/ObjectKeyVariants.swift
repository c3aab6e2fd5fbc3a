import Crypto
import Domain
import Foundation
import Registration
import Testing

/// Attack 5 of issue 12 as a table (`AttackVariantTests`): a registration's staged-avatar key chosen by the
/// attacker — another user's avatar or staged upload, reached directly, through `..` or `.` segments, a
/// backslash, a control character, a leading `/` or percent-encoding — with the size and checksum of the
/// victim's real avatar, is refused `image_staging_missing` before anything is read; nothing is deleted.
extension Attacks {
    static func everyAttackerChosenStagedKeyReadsAndDeletesNothing(on system: some TestSystem) async throws {
        let victim = try await system.victim()
        // Another user's upload, staged and waiting for its registration.
        let other = AvatarStep.stagingKey(registrationId: UUID().uuidString.lowercased())
        try system.backends.objects().put(victim.avatar, key: other, contentType: "image/jpeg")
        let keys: [(String) -> String] = [
            { _ in victim.avatarKey }, { _ in other }, { _ in "/" + victim.avatarKey }, { _ in "staging/../" + victim.avatarKey },
            { "staging/" + $0 + "/../../" + victim.avatarKey }, { "staging/./" + $0 }, { _ in ".." }, { _ in "staging/.." },
            { _ in "staging\\..\\" + victim.avatarKey }, { "staging/" + $0 + "\u{0}" }, { "staging/" + $0 + "\n" },
            { "staging/\u{7F}" + $0 }, { _ in "staging/%2e%2e/" + victim.avatarKey }, { "STAGING/" + $0 },
        ]
        var requests: [RegistrationRequested] = []
        for (index, key) in keys.enumerated() {
            var request = try await system.request(email: "attacker\(index)@example.com")
            request.avatar = .staged(key: key(request.registrationId), sha256: sha256Hex(victim.avatar), size: victim.avatar.count)
            requests.append(request)
        }
        try await system.publish(requests)
        let outcomes = try await system.waitForOutcomes(requests.map(\.registrationId))
        for request in requests {
            guard case .registrationFailed(let failed) = outcomes[request.registrationId]?.first else {
                Issue.record("\(String(describing: request.avatar)): \(String(describing: outcomes[request.registrationId]))")
                continue
            }
            #expect(failed.reason == .imageStagingMissing, "\(String(describing: request.avatar))")
            #expect(try system.backends.accounts().account(email: request.email) == nil)
        }
        #expect(try system.backends.objects().get(other) == victim.avatar, "the other user's upload is still there")
        try system.backends.objects().delete(other)
        try await system.expectUnchanged(victim)
        #expect(try system.audit().isEmpty)
    }
}
