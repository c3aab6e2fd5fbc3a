import AccountChanges
import Backends
import Domain
import EventTransport
import Foundation
import Registration
import S3Store
import SQLStores

/// The checks of the run's profile updates and deletions (`LifecycleChecks`), on the owners' answers over the topics and
/// through the gateway and on what every store holds after.
extension ChaosReport {
    /// The updates and deletions of `workload`: the topic owners' and the apps' (their outcomes among `apps`).
    static func lifecycleCases(topics owners: [TopicLifecycle.Owner], apps: [AppClient.Outcome], workload: ChaosWorkload) -> [LifecycleChecks.Case] {
        let topicCases = owners.map { owner in
            var item = LifecycleChecks.Case(registrationId: owner.registrationId, email: owner.email, action: owner.action, via: "topics")
            switch (owner.registration, owner.signIn) {
            case (nil, _): item.notSent = .registrationFailed("no outcome")
            case (let registered?, _) where !registered.isCompleted: item.notSent = .registrationFailed(reason(of: registered))
            case (_, nil): item.notSent = .signInRefused("no answer")
            case (_, let signIn?) where !signIn.isTokenIssued: item.notSent = .signInRefused(reason(of: signIn))
            default:
                item.answers = Array(Set(owner.answers.compactMap { try? EventCodec.decode($0) }.map { event in
                    switch event {
                    case .profileUpdated: LifecycleChecks.Case.Answer.updated
                    case .accountDeleted(let deleted): .deleted(requestId: deleted.requestId)
                    default: .refused(reason(of: event))
                    }
                }))
            }
            return item
        }
        let byKey = Dictionary(apps.map { ($0.request.key, $0) }, uniquingKeysWith: { first, _ in first })
        let appCases = workload.gatewayRegistrations.compactMap { registration -> LifecycleChecks.Case? in
            let id = registration.request.registrationId
            guard let action = workload.lifecycle[id] else { return nil }
            let registered = byKey[id]?.final
            var item = LifecycleChecks.Case(registrationId: id, email: registration.request.email, action: action, via: "gateway",
                                            uid: registered?.json["uid"] as? String)
            let signedIn = byKey["signin-" + id]?.final
            if registered?.status != 201 {
                item.notSent = .registrationFailed(registered.map(error(of:)) ?? "no answer")
            } else if signedIn?.status != 200 {
                item.notSent = .signInRefused(signedIn.map(error(of:)) ?? "no answer")
            } else if let answer = byKey[(action == .delete ? "delete-" : "update-") + id]?.final {
                item.answers = [answer.status != 200 ? .refused(error(of: answer))
                                : action == .delete ? .deleted(requestId: answer.json["requestId"] as? String) : .updated]
            }
            return item
        }
        return topicCases + appCases
    }

    /// The registration ids of the accounts `cases` deleted.
    static func deleted(_ cases: [LifecycleChecks.Case]) -> Set<String> {
        Set(cases.filter { $0.answers.count == 1 && $0.answers.first.map { if case .deleted = $0 { true } else { false } } == true }.map(\.registrationId))
    }

    /// Checks `cases` against the stores; returns how many accounts were deleted.
    mutating func checkLifecycle(_ cases: [LifecycleChecks.Case], stores: BackendOptions) throws -> Int {
        var remains: (deletions: [String], updates: [String]) = ([], [])
        let sent = cases.filter { $0.notSent == nil }
        for item in sent {
            guard let state = try Self.state(of: item, in: stores) else {
                remains.deletions.append("\(item.name): no account named by its registration")
                continue
            }
            remains.deletions += LifecycleChecks.deletionRemains(item, state)
            remains.updates += LifecycleChecks.updateRemains(item, state)
        }
        let answers = Dictionary(grouping: sent.flatMap { item in
            item.answers.map { (item.action == .delete ? "deletion " : "update ") + Self.label($0) }
        }) { $0 }
        let notSent = cases.compactMap(\.notSent).filter { if case .registrationFailed = $0 { true } else { false } }.count
        lines.append("     updates and deletions: \(cases.filter { $0.action != .delete }.count) updates, \(cases.filter { $0.action == .delete }.count) "
                     + "deletions (\(cases.filter { $0.via == "gateway" }.count) through the gateway); "
                     + answers.sorted { $0.key < $1.key }.map { "\($0.value.count) \($0.key)" }.joined(separator: ", ")
                     + "; \(notSent) not sent (registration failed)")
        let unanswered = LifecycleChecks.unanswered(cases)
        check(unanswered.isEmpty, "every update and deletion got exactly one answer (\(sent.count - unanswered.count)/\(cases.count - notSent)"
              + (unanswered.isEmpty ? ")" : "; \(unanswered.prefix(5)))"))
        let unexpected = LifecycleChecks.unexpected(cases)
        check(unexpected.isEmpty, "every update and deletion answer is the one its request called for"
              + (unexpected.isEmpty ? "" : ": \(unexpected.prefix(5))"))
        let deleted = Self.deleted(sent).count
        check(remains.deletions.isEmpty, "every deletion left nothing in any store (account, profile, avatar, codes, sessions) and its address "
              + "free, every refused one the account as it was (\(deleted) deleted)" + (remains.deletions.isEmpty ? "" : ": \(remains.deletions.prefix(5))"))
        check(remains.updates.isEmpty, "every profile update ended complete (new avatar stored, profile switched, old avatar deleted) or fully "
              + "undone (profile as before, new avatar deleted)" + (remains.updates.isEmpty ? "" : ": \(remains.updates.prefix(5))"))
        return deleted
    }

    /// What the stores hold about the account of `item`'s registration; nil when no registration record names it.
    private static func state(of item: LifecycleChecks.Case, in stores: BackendOptions) throws -> LifecycleChecks.AccountState? {
        let accounts = try stores.accountChangeStore()
        // (The gateway's registration record is kept under the id it made of the app's key.)
        let registration = try accounts.saga(item.registrationId)
        guard let uid = item.uid ?? registration?.uid else { return nil }
        let email = RegistrationRules.normalizedEmail(item.email)
        let profile = try stores.profileStore().profile(uid: uid)
        let codes = try stores.codeStore()
        let updates = try accounts.profileUpdates(uid: uid)
        let requestId: String? = switch item.answers.first {
        case .deleted(let id)?: id
        default: item.via == "topics" ? "delete-" + item.registrationId : nil
        }
        let deletion = try requestId.flatMap { try accounts.deletion(requestId: $0) }
        let named = [registration?.imageId, deletion?.imageId, profile.flatMap { LifecycleChecks.imageId(of: $0.profileImage) }]
            + updates.flatMap { [$0.newImageId, $0.oldImageId] }
        let objects = try stores.objectStore()
        return LifecycleChecks.AccountState(
            account: try accounts.account(uid: uid), addressTaken: try accounts.account(email: email) != nil, profile: profile,
            storedImages: Set(try named.compactMap { $0 }.filter { try objects.contains(AvatarStep.key(imageId: $0)) }),
            codes: try CodePurpose.allCases.filter { purpose in
                try codes.update(email: email, purpose: purpose) { (record) throws(StoreError) in record } != nil
            },
            sessions: try stores.tokenStore().liveFamilies(uid: uid, at: .distantPast).count, updates: updates, deletion: deletion)
    }

    /// The reason a refusal names (its type for another event).
    private static func reason(of event: Event) -> String {
        switch event {
        case .registrationFailed(let failed): failed.reason.rawValue
        case .tokenRefused(let refused), .accountChangeFailed(let refused): refused.reason.rawValue
        default: event.type
        }
    }

    /// The `error` of a gateway answer, or its status.
    private static func error(of answer: AppClient.Answer) -> String {
        answer.json["error"] as? String ?? String(answer.status)
    }

    private static func label(_ answer: LifecycleChecks.Case.Answer) -> String {
        if case .refused(let reason) = answer { reason } else { "done" }
    }
}

extension Event {
    /// Whether it is a `TokenIssued`.
    var isTokenIssued: Bool {
        if case .tokenIssued = self { true } else { false }
    }
}
