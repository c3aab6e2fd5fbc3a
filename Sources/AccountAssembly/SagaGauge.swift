import AccountChanges
import Foundation
import Registration
import Support

/// The sagas in flight, read from the accounts store at each scrape: `registrar_sagas`, the registrations by
/// stage, and `registrar_saga_oldest_age_seconds`, the age of the oldest registration, email change, deletion and profile
/// update in flight.
enum SagaGauge {
    private static let sagas = MetricsRegistry.shared.gauge(
        "registrar_sagas", "Registrations in flight, by stage (read from the accounts store)", labels: ["stage"])
    private static let oldest = MetricsRegistry.shared.gauge(
        "registrar_saga_oldest_age_seconds",
        "Seconds since the oldest saga in flight of each kind began (0 when none is); an email change being compensated "
            + "counts from its compensation, a deletion from its start, a profile update from its last step (read from the accounts store)", labels: ["kind"])
    static let inFlight = SagaStage.allCases.filter { !$0.isTerminal }
    static let changesInFlight = AccountChangeStage.allCases.filter { $0 == .awaitingProfile || $0 == .compensating }

    /// Reads `accounts` from now on (one account worker per process), at `clock`'s time.
    static func watch(_ accounts: any DeletionStore, clock: @escaping @Sendable () -> Date) {
        sagas.collect(from: "accounts") {
            let records = (try? accounts.sagas(in: Set(inFlight), updatedBefore: .distantFuture)) ?? []
            let counts = Dictionary(grouping: records, by: \.stage).mapValues { Double($0.count) }
            return Dictionary(uniqueKeysWithValues: inFlight.map { ([$0.rawValue], counts[$0] ?? 0) })
        }
        oldest.collect(from: "accounts") {
            let now = clock()
            var ages: [[String]: Double] = [:]
            if let sagas = try? accounts.sagas(in: Set(inFlight), updatedBefore: .distantFuture) {
                ages[["registration"]] = age(of: sagas.map(\.startedAt), at: now)
            }
            if let changes = try? changesInFlight.flatMap({ try accounts.changes(in: $0, updatedBefore: .distantFuture) }) {
                ages[["email_change"]] = age(of: changes.map(\.updatedAt), at: now)
            }
            if let deletions = try? accounts.deletions(in: DeletionStage.waiting, updatedBefore: .distantFuture) {
                // A deletion began when it ended the account's sessions; its sweep's resends move its record, not that.
                ages[["deletion"]] = age(of: deletions.map { deletion in
                    (try? accounts.account(uid: deletion.uid))?.notBefore ?? deletion.updatedAt
                }, at: now)
            }
            if let updates = try? accounts.profileUpdates(in: ProfileUpdateStage.waiting, updatedBefore: .distantFuture) {
                ages[["profile_update"]] = age(of: updates.map(\.updatedAt), at: now)
            }
            return ages
        }
    }

    private static func age(of starts: [Date], at now: Date) -> Double {
        starts.min().map { max(0, now.timeIntervalSince($0)) } ?? 0
    }
}
