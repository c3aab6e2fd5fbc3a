import Testing

/// The systems the tests of one suite share, one per set of worker arguments: started on first
/// use, stopped when the suite ends. Its tests run one at a time (`--no-parallel`, `.serialized`).
actor SystemPool {
    @TaskLocal static var current: SystemPool?

    private var systems: [[String: [String]]: LiveSystem] = [:]

    func system(extraArguments: [String: [String]]) async throws -> LiveSystem {
        if let system = systems[extraArguments] { return system }
        let system = try await LiveSystem.start(extraArguments: extraArguments)
        systems[extraArguments] = system
        return system
    }

    func stopAll() async {
        for system in systems.values { await system.stop() }
        systems = [:]
    }
}

/// Lets the tests of a suite share started systems (`LiveSystem.shared`), which saves starting a
/// broker and four workers per test. For suites whose sharing tests kill and reconfigure nothing.
struct SharedSystems: SuiteTrait, TestScoping {
    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let pool = SystemPool()
        do {
            try await SystemPool.$current.withValue(pool) { try await function() }
        } catch {
            await pool.stopAll()
            throw error
        }
        await pool.stopAll()
    }
}

extension Trait where Self == SharedSystems {
    /// The suite's tests may share systems: see `SharedSystems`.
    static var sharedSystems: Self { Self() }
}
