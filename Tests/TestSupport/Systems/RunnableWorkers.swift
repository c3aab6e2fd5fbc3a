import AccountAssembly
import CodeDispatchAssembly
import ImageAssembly
import ProfileAssembly
import WorkerAssembly

/// The worker kinds as their executables run them (each conformed to `RunnableWorker` by its role's assembly module,
/// which the tests link all of), in the order of `TopicAccess.workers`.
enum RunnableWorkers {
    static let all: [any RunnableWorker.Type] = [AccountWorker.self, ImageWorker.self, ProfileWorker.self, CodeDispatchWorker.self]
}
