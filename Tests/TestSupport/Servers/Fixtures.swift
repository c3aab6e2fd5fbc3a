import Foundation
import Domain
import Registration

/// Runs `body` with a new empty directory, removed afterwards.
public func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("registrar-test-\(UUID().uuidString)").path
    try createPrivateDirectory(path)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}

/// Runs `body` with a new empty directory, removed afterwards.
public func withTemporaryDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("registrar-test-\(UUID().uuidString)").path
    try createPrivateDirectory(path)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}

/// Creates the directory at `path` with mode 0700, as data and key directories must be.
public func createPrivateDirectory(_ path: String) throws {
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
}

/// Runs `body(0)` … `body(count - 1)` each on its own thread, released together; returns when all are done.
public func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let start = DispatchSemaphore(value: 0)
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        Thread {
            start.wait()
            body(index)
            group.leave()
        }.start()
    }
    for _ in 0..<count { start.signal() }
    group.wait()
}

/// A date with whole milliseconds, as a clock might give.
public let startDate = Date(timeIntervalSince1970: 1_700_000_000.123)

public func sagaRecord(_ registrationId: String, email: String = "ada@example.com", stage: SagaStage = .awaitingAvatar) -> SagaRecord {
    SagaRecord(registrationId: registrationId, uid: "uid-\(registrationId)", email: email, name: "Ada",
               isMapLocationEnabled: true, imageId: "image-\(registrationId)", stage: stage,
               startedAt: startDate, updatedAt: startDate)
}

public func pendingAccount(for saga: SagaRecord) -> Account {
    Account(uid: saga.uid, email: saga.email, passwordHash: "$argon2id$v=19$m=65536,t=2,p=1$c2FsdA$aGFzaA",
            status: .pending, registrationId: saga.registrationId, createdAt: saga.startedAt)
}

extension AccountStore {
    /// Registers the account of `sagaRecord(registrationId, email:)`, started and completed; its saga.
    public func registered(_ registrationId: String, email: String) throws -> SagaRecord {
        let saga = sagaRecord(registrationId, email: email)
        _ = try start(saga, account: pendingAccount(for: saga))
        _ = try save(saga.next(.completed), applying: .activate(uid: saga.uid))
        return saga
    }
}

extension SagaRecord {
    /// This record as the next save would write it.
    public func next(_ stage: SagaStage, imageURL: String? = nil, failure: Failure? = nil) -> SagaRecord {
        var next = self
        next.stage = stage
        next.imageURL = imageURL ?? self.imageURL
        next.failure = failure ?? self.failure
        next.version += 1
        next.updatedAt = updatedAt.addingTimeInterval(1)
        return next
    }
}

/// Runs `body` with the path of a new 1 MiB tmpfs (a disk to fill), unmounted afterwards. Root only:
/// throws when the file system cannot be mounted.
public func withSmallFileSystem<T>(_ body: (String) throws -> T) throws -> T {
    try withTemporaryDirectory { directory in
        try runCommand("/bin/mount", ["-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", directory])
        defer { _ = try? runCommand("/bin/umount", [directory]) }
        return try body(directory)
    }
}
