import Accounts
import Crypto
import Domain
import Foundation

/// Profile updates: the access token sealed, a large avatar staged, the updated profile opened.
extension RequestSealing {
    /// A profile update of the account `accessToken` names, as a client publishes it: each field given is set, the others
    /// kept; the avatar travels inline, or staged in `objects` (a claim check) when it is given and the avatar too large for
    /// a message.
    public func profileUpdate(accessToken: String, name: String? = nil, isMapLocationEnabled: Bool? = nil, avatar: [UInt8]? = nil,
                              requestId: String = UUID().uuidString.lowercased(),
                              staging objects: (any ObjectStore)? = nil) throws -> ProfileUpdateRequested {
        ProfileUpdateRequested(requestId: requestId, sealedAccessToken: seal(accessToken, for: .updateProfile, requestId: requestId, email: nil),
                               replyKey: replyKey(for: requestId), name: name, isMapLocationEnabled: isMapLocationEnabled,
                               avatar: try avatar.map {
                                   try Self.source(for: $0, stagedAt: StagedUploads.key(profileUpdateId: requestId), staging: objects)
                               })
    }

    /// The profile an outcome of the update `requestId` left, opened; nil for any other outcome.
    public func updatedProfile(in outcome: Event, answering requestId: String) throws -> ProfileView? {
        guard case .profileUpdated(let updated) = outcome else { return nil }
        return try replySecret.open(updated.sealedProfile, as: ProfileView.self, answering: requestId)
    }
}

/// Profile updates through the topics.
extension RegistrarClient {
    /// Publishes `request` and returns its outcome (`ProfileUpdated` or `AccountChangeFailed`) and, when updated, the
    /// profile it left. A refused update whose avatar was staged in `objects` has its staged object deleted.
    public func updateProfile(_ request: ProfileUpdateRequested, timeout: Duration,
                              staging objects: (any ObjectStore)? = nil) async throws -> (Event, ProfileView?) {
        let outcome = try await send(.profileUpdateRequested(request), timeout: timeout)
        let profile = try updatedProfile(in: outcome, answering: request.requestId)
        if profile == nil, case .staged(let key, _, _)? = request.avatar, key == StagedUploads.key(profileUpdateId: request.requestId) {
            try? objects?.delete(key)
        }
        return (outcome, profile)
    }
}
