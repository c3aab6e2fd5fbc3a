import Backends
import Domain
import Foundation
import Registration
import SQLStores
import Synchronization
import Verification

// The real stores of the ports no fake is kept for (`Tests/README.md`, Fakes), as unit tests use them: each in a
// temporary directory of its own, removed with it, with the faults and the look-ups the tests ask of it.

/// A real store in a new temporary directory, which goes with it: opened at its first use, so that a suite may hold
/// one in a stored property; failing to open it is a permanent `StoreError` of that use.
final class TemporaryLocation<Store: Sendable>: Sendable {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("registrar-test-\(UUID().uuidString)").path
    private let opening: @Sendable (_ directory: String) throws -> Store
    private let opened = Mutex<Store?>(nil)

    init(_ open: @escaping @Sendable (_ directory: String) throws -> Store) {
        opening = open
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func store() throws(StoreError) -> Store {
        do {
            return try opened.withLock { opened in
                if let opened { return opened }
                try createPrivateDirectory(directory)
                let store = try self.opening(directory)
                opened = store
                return store
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.permanent, "cannot open a temporary store: \(error)")
        }
    }
}

/// The SQL seal ledger, on a SQLite account database.
public final class TemporarySealLedger: SealLedger {
    private let location = TemporaryLocation<any SealLedger> { directory in
        try BackendOptions(accounts: "sqlite://\(directory)/accounts.sqlite", dataDirectory: "/nonexistent").sealLedger()
    }

    public init() {}

    public func claim(requestId: String, digest: String, at date: Date) throws(StoreError) -> Bool {
        try location.store().claim(requestId: requestId, digest: digest, at: date)
    }

    public func forget(claimedBefore date: Date) throws(StoreError) -> Int {
        try location.store().forget(claimedBefore: date)
    }
}

/// The SQL answer memo of a worker `test`, on a SQLite account database.
public final class TemporaryAnswerMemo: AnswerMemo {
    private let location = TemporaryLocation<any AnswerMemo> { directory in
        try BackendOptions(accounts: "sqlite://\(directory)/accounts.sqlite", dataDirectory: "/nonexistent").answerMemo(of: "test")
    }

    public init() {}

    public func answer(to request: AnswerKey) throws(StoreError) -> [UInt8]? {
        try location.store().answer(to: request)
    }

    public func keep(_ answer: [UInt8], for request: AnswerKey) throws(StoreError) -> [UInt8]? {
        try location.store().keep(answer, for: request)
    }

    public func atomically<T: Sendable>(_ work: () throws -> T) throws -> T {
        try location.store().atomically(work)
    }

    public func forget(answeredBefore date: Date) throws(StoreError) -> Int {
        try location.store().forget(answeredBefore: date)
    }
}

/// The SQL profile store, on a SQLite profile database; a fault on its writes.
public final class TemporaryProfileStore: ProfileStore {
    private let location = TemporaryLocation<any ProfileStore> { directory in
        try BackendOptions.profileStore(at: "sqlite://\(directory)/profiles.sqlite")
    }
    /// Raised by every write.
    public let writes = Fault()

    public init() {}

    public func apply<T: Sendable>(revision: Int, uid: String, _ change: (inout Profile?) -> T) throws(StoreError) -> T? {
        try writes.check()
        return try location.store().apply(revision: revision, uid: uid, change)
    }

    public func profile(uid: String) throws(StoreError) -> Profile? {
        try location.store().profile(uid: uid)
    }

    public func profiles() throws(StoreError) -> [StoredProfile] {
        try location.store().profiles()
    }
}

/// The SQL code store, on a SQLite account database; a fault on its updates.
public final class TemporaryCodeStore: CodeStore {
    private let location = TemporaryLocation<any CodeStore> { directory in
        try BackendOptions.codeStore(at: "sqlite://\(directory)/accounts.sqlite")
    }
    /// Raised by every update.
    public let updates = Fault()

    public init() {}

    public func update<T: Sendable>(email: String, purpose: CodePurpose,
                                    _ body: (inout CodeRecord?) throws(StoreError) -> T) throws(StoreError) -> T {
        try updates.check()
        return try location.store().update(email: email, purpose: purpose, body)
    }

    @discardableResult
    public func forgetCodes(expiredBefore date: Date) throws(StoreError) -> Int {
        try location.store().forgetCodes(expiredBefore: date)
    }

    /// Records `code` as the current code of `email` and `purpose`, as the code dispatch step issues it at `date`, with
    /// `recovery` as its recovery form when given (past the fault).
    public func issue(_ code: String, recovery: String? = nil, to email: String, _ purpose: CodePurpose, secrets: any CodeSecrets,
                      at date: Date) throws {
        let digest = secrets.digest(of: code, purpose: purpose, email: email)
        let recoveryDigest = recovery.map { secrets.digest(of: $0, purpose: purpose, email: email) }
        try location.store().update(email: email, purpose: purpose) { (record) throws(StoreError) in
            record = CodeRules().issued(record, email: email, purpose: purpose, digest: digest, recoveryDigest: recoveryDigest,
                                        nonce: nil, requestId: "code-request", at: date)
        }
    }

    /// The record of `email` and `purpose`, as stored (read past the fault).
    public func record(_ email: String, _ purpose: CodePurpose) throws -> CodeRecord? {
        try location.store().update(email: email, purpose: purpose) { (record) throws(StoreError) in record }
    }
}

/// The file object store, its URLs under ``baseURL``; a fault on its puts.
public final class TemporaryObjectStore: ObjectStore {
    /// Where clients would fetch the objects: `url(for: key)` is this, a slash and the key.
    public static let baseURL = "https://images.example.com"
    private let location = TemporaryLocation<any ObjectStore> { directory in
        try FileObjectStore(root: "\(directory)/objects", publicBaseURL: TemporaryObjectStore.baseURL)
    }
    /// Raised by `put` (once the key is found valid).
    public let puts = Fault()

    public init() {}

    public func put(_ bytes: [UInt8], key: String, contentType: String) throws(StoreError) {
        try ObjectKey.validate(key)
        try puts.check()
        try location.store().put(bytes, key: key, contentType: contentType)
    }

    public func get(_ key: String) throws(StoreError) -> [UInt8]? {
        try location.store().get(key)
    }

    public func prefix(of key: String, length: Int) throws(StoreError) -> [UInt8]? {
        try location.store().prefix(of: key, length: length)
    }

    public func size(of key: String) throws(StoreError) -> Int? {
        try location.store().size(of: key)
    }

    public func delete(_ key: String) throws(StoreError) {
        try location.store().delete(key)
    }

    public func list(prefix: String) throws(StoreError) -> [StoredObject] {
        try location.store().list(prefix: prefix)
    }

    public func url(for key: String) -> String {
        (try? location.store().url(for: key)) ?? "\(Self.baseURL)/\(key)"
    }

    /// Every key stored, in order.
    public func keys() throws(StoreError) -> [String] {
        try list(prefix: "").map(\.key)
    }
}
