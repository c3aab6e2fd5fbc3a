import Backends
import Crypto
import Foundation
import Support

/// A whole installation on this machine, for `demo` and `chaos`: a local broker and the worker
/// binaries as separate processes, sharing one data directory (which it empties first — only one
/// it made itself) and the stores it names: the embedded defaults there, or the URLs given.
final class LocalInstallation: @unchecked Sendable {
    // `workers` is mutated only by the command that owns the installation; `lock` guards it
    // against the chaos fault task and the final checks running at once.
    static let workerNames = ["account-worker", "image-worker", "profile-worker", "code-dispatch-worker"]

    let directory: String
    let bootstrap: String
    let publicKey: SealingPublicKey
    private let broker: ChildProcess
    private var workers: [String: ChildProcess] = [:]
    private let lock = NSLock()
    private let binaries: String

    var logs: String { directory + "/logs" }
    var controlSocket: String { directory + "/broker.control" }
    /// The stores the workers use.
    let stores: BackendOptions

    /// Prepares `path`, starts the broker with `brokerArguments` and every worker, on the stores of
    /// `storeURLs` (URLs only: the embedded defaults live in `path`).
    init(at path: String, storeURLs: BackendOptions? = nil, brokerArguments: [String] = [], workerArguments: [String] = []) async throws {
        directory = try Self.prepare(path)
        var stores = storeURLs ?? BackendOptions(dataDirectory: directory)
        stores.dataDirectory = directory
        self.stores = stores
        binaries = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path
        broker = try ChildProcess(binaries + "/registrar", ["broker", "--data-dir", directory] + brokerArguments,
                                  stderrPath: directory + "/logs/broker.log")
        guard let bootstrap = await broker.nextLine() else {
            throw InstallationError("the local broker did not start; see \(directory)/logs/broker.log")
        }
        self.bootstrap = bootstrap
        publicKey = try SealingKeyPair.loadOrCreate(at: EmbeddedBackends(directory).sealingKey()).publicKey
        self.workerArguments = workerArguments
        for name in Self.workerNames { try start(name) }
    }

    private let workerArguments: [String]

    /// Starts (or restarts) the worker `name`.
    func start(_ name: String) throws {
        let process = try ChildProcess(binaries + "/" + name, ["--data-dir", directory] + workerArguments,
                                       environment: stores.environment, stderrPath: "\(logs)/\(name).log")
        lock.withLock { workers[name] = process }
    }

    /// SIGKILLs the worker `name`: no clean-up, no commit.
    func kill(_ name: String) async {
        guard let process = lock.withLock({ workers[name] }) else { return }
        process.send(SIGKILL)
        _ = await process.waitForExit()
    }

    /// The workers that are not running.
    var stoppedWorkers: [String] {
        lock.withLock { workers.filter { !$0.value.isRunning }.map(\.key).sorted() }
    }

    /// Stops the workers, then the broker (SIGTERM, then SIGKILL after a grace period).
    func stop() async {
        for process in lock.withLock({ Array(workers.values) }) { await process.stop() }
        await broker.stop()
    }

    private static func prepare(_ path: String) throws -> String {
        let manager = FileManager.default
        let directory = URL(fileURLWithPath: path).standardizedFileURL.path
        let marker = directory + "/.registrar-local"
        if manager.fileExists(atPath: directory) {
            guard try manager.contentsOfDirectory(atPath: directory).isEmpty || manager.fileExists(atPath: marker) else {
                throw InstallationError("\(directory) holds other data; give an empty --data-dir")
            }
            try manager.removeItem(atPath: directory)
        }
        try manager.createDirectory(atPath: directory + "/logs", withIntermediateDirectories: true)
        _ = manager.createFile(atPath: marker, contents: nil)
        return directory
    }
}

struct InstallationError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
