import Foundation
import Metrics
import Registration

/// `registrar_sagas`: the registrations in flight by stage, read from the accounts store at each scrape.
enum SagaGauge {
    private static let sagas = MetricsRegistry.shared.gauge(
        "registrar_sagas", "Registrations in flight, by stage (read from the accounts store)", labels: ["stage"])
    static let inFlight = SagaStage.allCases.filter { !$0.isTerminal }

    /// Reads `accounts` from now on (one account worker per process).
    static func watch(_ accounts: any AccountStore) {
        sagas.collect(from: "accounts") {
            let records = (try? accounts.sagas(in: Set(inFlight), updatedBefore: .distantFuture)) ?? []
            let counts = Dictionary(grouping: records, by: \.stage).mapValues { Double($0.count) }
            return Dictionary(uniqueKeysWithValues: inFlight.map { ([$0.rawValue], counts[$0] ?? 0) })
        }
    }
}
