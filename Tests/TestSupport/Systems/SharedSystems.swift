import Foundation

/// The systems the live tests of this test process share, one per set of worker arguments: started
/// on first use, stopped when the process exits. The tests run one at a time (`--no-parallel`).
actor SystemPool {
    static let shared = SystemPool()

    private struct Key: Hashable {
        var label: String
        var extraArguments: [String: [String]]
    }

    private var systems: [Key: LiveSystem] = [:]

    private init() {
        ExitSequence.add(self, at: .systems) { ExitSequence.waitFor("the shared live systems") { await SystemPool.shared.stopAll() } }
    }

    /// The system `label` names with `extraArguments` (label "" for the one every suite may share).
    func system(_ label: String = "", extraArguments: [String: [String]]) async throws -> LiveSystem {
        let key = Key(label: label, extraArguments: extraArguments)
        if let system = systems[key] { return system }
        let system = try await LiveSystem.start(extraArguments: extraArguments)
        systems[key] = system
        return system
    }

    private func stopAll() async {
        for system in systems.values { await system.stop() }
        systems = [:]
    }
}
