import Foundation

/// The systems the live tests of this test process share, one per set of worker arguments: started on first use,
/// stopped when more than `idleLimit` of them wait unused (the least recently used first: an idle broker and four
/// idle workers cost about a tenth of a core, and a test process goes through dozens of suites), and when the process
/// exits. A system stopped so is started again if a test asks for it later; its tests count only what they add.
actor SystemPool {
    static let shared = SystemPool()

    /// How many systems no test is using may keep running.
    static let idleLimit = 2

    struct Key: Hashable, Sendable {
        var label: String
        var extraArguments: [String: [String]]
    }

    private struct Entry {
        var system: Task<LiveSystem, any Error>
        var users = 0
        var lastUse = 0
    }

    private var entries: [Key: Entry] = [:]
    private var uses = 0

    private init() {
        ExitSequence.add(self, at: .systems) { ExitSequence.waitFor("the shared live systems") { await SystemPool.shared.stopAll() } }
    }

    /// Runs `body` with the system `label` names with `extraArguments` (label "" for the one every suite may share).
    nonisolated func using(_ label: String = "", extraArguments: [String: [String]],
                           _ body: (LiveSystem) async throws -> Void) async throws {
        let key = Key(label: label, extraArguments: extraArguments)
        let system = try await acquire(key)
        do {
            try await body(system)
        } catch {
            await release(key)
            throw error
        }
        await release(key)
    }

    private func release(_ key: Key) { entries[key]?.users -= 1 }

    private func acquire(_ key: Key) async throws -> LiveSystem {
        uses += 1
        if entries[key] == nil {
            await stopIdle(keeping: Self.idleLimit - 1)
            entries[key] = Entry(system: Task { try await LiveSystem.start(extraArguments: key.extraArguments) })
        }
        entries[key]!.users += 1
        entries[key]!.lastUse = uses
        do {
            return try await entries[key]!.system.value
        } catch {
            entries[key] = nil
            throw error
        }
    }

    /// Stops the idle systems but the `count` used most recently.
    private func stopIdle(keeping count: Int) async {
        let idle = entries.filter { $0.value.users == 0 }.sorted { $0.value.lastUse > $1.value.lastUse }
        for (key, entry) in idle.dropFirst(count) {
            entries[key] = nil
            if let system = try? await entry.system.value { await system.stop() }
        }
    }

    private func stopAll() async {
        let all = entries.values
        entries = [:]
        for entry in all { if let system = try? await entry.system.value { await system.stop() } }
    }
}
