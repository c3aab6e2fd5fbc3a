import AccountChanges
import Backends
import Domain
import Foundation
import Registration
import Support

/// The profile worker: writes, updates and deletes profiles.
public enum ProfileWorker: WorkerKind {
    public static let role = WorkerRole.profile
    public static let summary = "write, update and delete profiles (users/<uid>)"
    public static let steps: [any EventHandler.Type] = [ProfileStep.self, ProfileEmailStep.self, ProfileFieldsStep.self]
    public static let options = BackendOptions.profilesSpecs

    /// Reads no time.
    public static func stack(_ parsed: ParsedArguments, dataDirectory: String,
                             clock: @escaping @Sendable () -> Date) throws -> WorkerStack {
        let profiles = try BackendOptions(parsed, dataDirectory: dataDirectory).profileStore()
        return WorkerStack(name: name, routing: RoutingTable([ProfileStep(profiles: profiles), ProfileEmailStep(profiles: profiles),
                                                                  ProfileFieldsStep(profiles: profiles)]))
    }
}
