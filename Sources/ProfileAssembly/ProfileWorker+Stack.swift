import AccountChanges
import Backends
import Domain
import Foundation
import Registration
import SQLStores
import Support
import WorkerAssembly

/// The profile worker's stack: the profile database (SQLite or PostgreSQL) and its outbox. No mail, no objects.
extension ProfileWorker: RunnableWorker {
    /// Reads no time.
    public static func stack(_ parsed: ParsedArguments, dataDirectory: String,
                             clock: @escaping @Sendable () -> Date) throws -> WorkerStack {
        let stores = BackendOptions(parsed, dataDirectory: dataDirectory)
        let profiles = try stores.profileStore()
        return WorkerStack(name: name, routing: RoutingTable([ProfileStep(profiles: profiles), ProfileEmailStep(profiles: profiles),
                                                                  ProfileFieldsStep(profiles: profiles)]),
                           outbox: try stores.profileOutbox())
    }
}
