import AccountChanges
import Backends
import Domain
import Registration
import Support

/// The profile worker: writes, updates and deletes profiles, and publishes the changes its store announces (`ProfileUpdated`).
/// Its stack: `ProfileAssembly`.
public enum ProfileWorker: WorkerKind {
    public static let role = WorkerRole.profile
    public static let summary = "write, update and delete profiles (users/<uid>)"
    public static let steps: [any EventHandler.Type] = [ProfileStep.self, ProfileEmailStep.self, ProfileFieldsStep.self]
    public static let options = BackendOptions.profilesSpecs
}
