import Domain
import Registration

/// The checks of the apps' requests through the gateway: each app got exactly one genuine answer — a final answer,
/// never a 5xx, the same again when it retried after it, and for a registration the workers' own outcome (a `201`
/// naming the account the store holds for its email, or the reason its request called for).
extension ChaosReport {
    /// Checks `outcomes` against `workload` and the accounts the store holds (but the `deleted` registrations', whose
    /// accounts the lifecycle checks look for); returns how many registrations the apps were answered `201` for.
    mutating func checkApps(_ outcomes: [AppClient.Outcome], workload: ChaosWorkload, accounts: [Account], deleted: Set<String>) -> Int {
        let unanswered = outcomes.filter { $0.final == nil }.map(\.request.key)
        check(unanswered.isEmpty, "every app got a final answer from the gateway (\(outcomes.count - unanswered.count)/\(outcomes.count)"
              + (unanswered.isEmpty ? ")" : "; none for: \(unanswered.prefix(5)))"))
        let failed = outcomes.filter { ($0.final?.status ?? 0) >= 500 }.map { "\($0.request.key): \($0.final!.status) \($0.final!.body.prefix(80))" }
        check(failed.isEmpty, "no app's final answer is a 5xx (\(failed.count)\(failed.isEmpty ? "" : ": \(failed.prefix(3))"))")
        let changed = outcomes.filter { $0.final != nil && $0.repeated != $0.final }
            .map { "\($0.request.key): \($0.final!.status) then \($0.repeated?.status ?? 0)" }
        check(changed.isEmpty, "every app's retry after its answer got the same answer (\(changed.count) differ\(changed.isEmpty ? "" : ": \(changed.prefix(3))"))")

        let uids = Dictionary(accounts.map { (RegistrationRules.normalizedEmail($0.email), $0.uid) }, uniquingKeysWith: { first, _ in first })
        let byKey = Dictionary(outcomes.map { ($0.request.key, $0) }, uniquingKeysWith: { first, _ in first })
        var completed = 0
        var wrong: [String] = []
        var reasons: [String: Int] = [:]
        for registration in workload.gatewayRegistrations {
            let id = registration.request.registrationId
            guard let answer = byKey[id]?.final else { continue }
            let reason = answer.json["error"] as? String
            reasons[reason ?? String(answer.status), default: 0] += 1
            switch (answer.status, reason.flatMap(ReasonCode.init(rawValue:))) {
            case (201, _):
                completed += 1
                let uid = answer.json["uid"] as? String
                let stored = deleted.contains(id) ? uid : uids[RegistrationRules.normalizedEmail(registration.request.email)]
                if registration.expectedFailure != nil || uid == nil || uid != stored {
                    wrong.append("\(id): 201 with uid \(uid ?? "none")")
                }
            case (409, .emailTaken?) where registration.racesForEmail, (422, .invalidCredentials?) where registration.racesForEmail,
                 (422, .deadlineExceeded?):
                break
            case (422, let reason?) where reason == registration.expectedFailure:
                break
            default:
                wrong.append("\(id): \(answer.status) \(reason ?? "")")
            }
        }
        lines.append("     apps through the gateway: \(workload.gatewayRegistrations.count) registrations ("
                     + reasons.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key == "201" ? "completed" : $0.key)" }.joined(separator: ", ")
                     + "), \(workload.gatewayCodeRequests.count) code requests, \(workload.gatewaySignIns.count) sign-ins; "
                     + Self.retries(outcomes))
        check(wrong.isEmpty, "every registration answer through the gateway is the workers' (the account of its email, or the reason "
              + "its request called for)\(wrong.isEmpty ? "" : ": \(wrong.prefix(5))")")
        return completed
    }

    /// The request ids of the code requests the gateway answered as sent (the ids the mail names).
    static func codesSent(_ outcomes: [AppClient.Outcome]) -> Set<String> {
        Set(outcomes.filter { $0.request.path == "/email/getCode" && $0.final?.status == 200 }.compactMap { $0.final?.json["requestId"] as? String })
    }

    /// What the apps saw before their final answers.
    private static func retries(_ outcomes: [AppClient.Outcome]) -> String {
        let pending = outcomes.flatMap(\.answers).filter(\.isPending)
        let counts = Dictionary(grouping: pending, by: { $0.status == 0 ? "no connection" : String($0.status) }).mapValues(\.count)
        return "\(pending.count) retries (" + counts.sorted { $0.key < $1.key }.map { "\($0.value) after \($0.key)" }.joined(separator: ", ") + ")"
    }
}
