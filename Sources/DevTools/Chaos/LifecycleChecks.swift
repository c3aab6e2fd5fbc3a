import AccountChanges
import Domain
import Registration

/// The checks of the chaos run's profile updates and deletions, on what their owners got and what the stores hold after:
/// each one genuine answer, the one its request called for; a deletion leaves nothing of its account in any store and
/// its address free (a refused one leaves the account as it was); a profile update ends complete (the new avatar stored,
/// the profile switched, the old avatar deleted) or fully undone (the profile as before, the new avatar deleted).
struct LifecycleChecks {
    /// One owner's update or deletion and what it got.
    struct Case: Sendable {
        /// What an answer said.
        enum Answer: Hashable, Sendable {
            case updated
            /// The deletion's request id (by which its record is kept), when the answer names it.
            case deleted(requestId: String?)
            case refused(String)
        }

        var registrationId: String
        var email: String
        var action: ChaosWorkload.LifecycleAction
        /// `topics` or `gateway`.
        var via: String
        /// The account its registration's answer named (through the gateway; over the topics its registration's record does).
        var uid: String?
        /// Why the owner never sent its request: its registration did not complete, or (a failure) its sign-in was refused.
        var notSent: NotSent?
        /// The distinct answers it got (none, one, or conflicting ones).
        var answers: [Answer] = []

        enum NotSent: Sendable, Equatable {
            case registrationFailed(String)
            case signInRefused(String)
        }

        var name: String { "\(via) \(action == .delete ? "deletion" : "update") of \(registrationId)" }
    }

    /// What the stores hold about one owner's account after the run.
    struct AccountState: Sendable {
        var account: Account?
        /// Whether an account holds the owner's address.
        var addressTaken: Bool
        var profile: Profile?
        /// The image ids whose avatar object is stored, among those the profile, the records and the registration name.
        var storedImages: Set<String>
        /// The purposes of the codes kept for the address.
        var codes: [CodePurpose]
        /// The refresh-token families of the account not revoked.
        var sessions: Int
        var updates: [ProfileUpdateRecord]
        var deletion: DeletionRecord?
    }

    /// The image id of an avatar URL (`…/ProfileImages/<id>.jpg`).
    static func imageId(of url: String) -> String? {
        guard let range = url.range(of: "ProfileImages/", options: .backwards), url.hasSuffix(".jpg") else { return nil }
        return String(url[range.upperBound...].dropLast(4))
    }

    /// Each case that was sent got exactly one answer, and every owner could sign in.
    static func unanswered(_ cases: [Case]) -> [String] {
        cases.compactMap { item in
            if case .signInRefused(let reason)? = item.notSent { return "\(item.name): its owner's sign-in was refused (\(reason))" }
            guard item.notSent == nil else { return nil }
            return item.answers.count == 1 ? nil : "\(item.name): \(item.answers.isEmpty ? "no answer" : "answers \(item.answers)")"
        }
    }

    /// Each answer is the one its request called for: an update done, or refused `image_corrupt` for a corrupt avatar, or
    /// `deadline_exceeded` (no progress for the saga deadline: undone); a deletion done.
    static func unexpected(_ cases: [Case]) -> [String] {
        cases.compactMap { item in
            guard item.answers.count == 1, let answer = item.answers.first else { return nil }
            switch (item.action, answer) {
            case (.delete, .deleted), (.update(_, _, false), .updated), (.update(_, _, true), .refused(ReasonCode.imageCorrupt.rawValue)),
                 (.update, .refused(ReasonCode.deadlineExceeded.rawValue)):
                return nil
            default:
                return "\(item.name): \(answer)"
            }
        }
    }

    /// What a deletion left: nothing of a deleted account (its account, profile, avatar, codes, sessions; its record
    /// finished without its address) and its address free; everything of an account whose deletion was refused.
    static func deletionRemains(_ item: Case, _ state: AccountState) -> [String] {
        guard item.action == .delete, item.answers.count == 1, let answer = item.answers.first else { return [] }
        guard case .deleted = answer else {
            var kept: [String] = []
            if state.account?.status != .active { kept.append("account \(state.account?.status.rawValue ?? "gone")") }
            if let url = state.profile?.profileImage {
                if !(imageId(of: url).map(state.storedImages.contains) ?? false) { kept.append("avatar gone") }
            } else {
                kept.append("profile gone")
            }
            return kept.isEmpty ? [] : ["\(item.name) refused, yet: " + kept.joined(separator: ", ")]
        }
        var left: [String] = []
        if state.account != nil { left.append("account") }
        if state.addressTaken { left.append("address taken") }
        if state.profile != nil { left.append("profile") }
        if !state.codes.isEmpty { left.append("codes \(state.codes.map(\.rawValue))") }
        if state.sessions > 0 { left.append("\(state.sessions) sessions") }
        if let deletion = state.deletion {
            if let uid = item.uid, deletion.uid != uid { left.append("the deletion's record names another account") }
            if deletion.stage != .completed { left.append("deletion at \(deletion.stage.rawValue)") }
            if !deletion.email.isEmpty { left.append("the deletion's record keeps the address") }
            if let image = deletion.imageId, state.storedImages.contains(image) { left.append("avatar \(image)") }
        } else if case .deleted(let requestId?) = answer {
            left.append("no record of the deletion \(requestId)")
        }
        return left.isEmpty ? [] : ["\(item.name) left: " + left.joined(separator: ", ")]
    }

    /// What an update left: each of its records complete (the profile its fields applied, the new avatar stored, the old one
    /// deleted) or undone (the profile as before, the new avatar deleted), never in between; the answer saying which.
    static func updateRemains(_ item: Case, _ state: AccountState) -> [String] {
        guard case .update = item.action, item.answers.count == 1, let answer = item.answers.first else { return [] }
        var wrong: [String] = []
        for record in state.updates {
            switch record.stage {
            case .completed:
                if state.profile != record.profile { wrong.append("completed, yet the profile is not the update's") }
                if let new = record.newImageId, !state.storedImages.contains(new) { wrong.append("completed, yet its new avatar is gone") }
                if let old = record.oldImageId, old != record.newImageId, state.storedImages.contains(old) {
                    wrong.append("completed, yet the old avatar is still stored")
                }
            case .failed:
                if state.profile != record.previous { wrong.append("undone, yet the profile is not as before") }
                if let new = record.newImageId, state.storedImages.contains(new) { wrong.append("undone, yet its new avatar is stored") }
            default:
                wrong.append("stuck at \(record.stage.rawValue)")
            }
        }
        let completed = state.updates.contains { $0.stage == .completed }
        if (answer == .updated) != completed { wrong.append("answered \(answer), \(completed ? "yet completed" : "yet not completed")") }
        if let url = state.profile?.profileImage, !(imageId(of: url).map(state.storedImages.contains) ?? false) {
            wrong.append("the profile's avatar is not stored")
        }
        if state.profile == nil { wrong.append("no profile") }
        return wrong.isEmpty ? [] : ["\(item.name): " + wrong.joined(separator: ", ")]
    }
}
