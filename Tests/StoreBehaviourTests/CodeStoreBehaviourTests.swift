import Backends
import Domain
import Foundation
import SQLStores
import Synchronization
@testable import TestSupport
import Testing
import Verification

/// What every `CodeStore` must do, checked against each implementation.
@Suite(.tags(.production)) struct CodeStoreBehaviourTests {
    @Test(arguments: StoreBackend.databases)
    func updateSavesWhatTheBodyLeaves(backend: StoreBackend) throws {
        try backend.withStore(BackendOptions.codeStore(at:)) { (store) throws in
            let issued = codeRecord()
            #expect(try store.replace(issued.email, .login, with: issued) == nil)
            #expect(try store.replace(issued.email, .login, with: issued) == issued)
            var mailed = issued
            mailed.unmailed = []
            #expect(try store.replace(issued.email, .login, with: mailed) == issued, "the nonce, the senders and the owed mail are kept")
            var used = mailed
            used.attempts = 2
            used.usedBy = "r2"
            used.usedWith = "reply-key-2"
            #expect(try store.replace(issued.email, .login, with: used) == mailed)
            #expect(try store.replace(issued.email, .register, with: nil) == nil)
            #expect(try store.replace(issued.email, .login, with: nil) == used)
            #expect(try store.replace(issued.email, .login, with: nil) == nil)
        }
    }

    @Test(arguments: StoreBackend.databases)
    func aThrowingBodySavesNothingAndItsErrorPassesUnchanged(backend: StoreBackend) throws {
        try backend.withStore(BackendOptions.codeStore(at:)) { (store) throws in
            let issued = codeRecord()
            let error = #expect(throws: StoreError.self) {
                try store.update(email: issued.email, purpose: .login) { (record) throws(StoreError) in
                    record = issued
                    throw StoreError(.transient, "mail server unavailable")
                }
            }
            #expect(error?.kind == .transient)
            #expect(error?.message == "mail server unavailable")
            #expect(try store.replace(issued.email, .login, with: nil) == nil)
        }
    }

    /// Several stores on one location stand for several worker processes.
    @Test(arguments: StoreBackend.databases)
    func concurrentUpdatesOfOneCodeSeeEachOthersWrites(backend: StoreBackend) throws {
        try backend.withNewLocation { (url) throws in
            let stores = try (0..<2).map { _ in try BackendOptions.codeStore(at: url) }
            let failures = Mutex(0)
            onThreads(12) { index in
                do {
                    try stores[index % 2].update(email: "ada@example.com", purpose: .login) { (record) throws(StoreError) in
                        record = record ?? codeRecord()
                        record?.attempts += 1
                    }
                } catch {
                    failures.withLock { $0 += 1 }
                }
            }
            #expect(failures.withLock { $0 } == 0)
            #expect(try stores[0].replace("ada@example.com", .login, with: nil)?.attempts == 12)
        }
    }
}

extension CodeStoreBehaviourTests {
    /// The sweep forgets the codes (used or not) that expired before its cut-off, and no other.
    @Test(arguments: StoreBackend.databases)
    func codesExpiredBeforeTheCutoffAreForgotten(backend: StoreBackend) throws {
        try backend.withStore(BackendOptions.codeStore(at:)) { (store) throws in
            var expired = codeRecord()
            expired.email = "gone@example.com"
            expired.expiresAt = startDate.addingTimeInterval(-7_200)
            _ = try store.replace("gone@example.com", .login, with: expired)
            _ = try store.replace("ada@example.com", .login, with: codeRecord())
            #expect(try store.forgetCodes(expiredBefore: startDate.addingTimeInterval(-3_600)) == 1)
            #expect(try store.replace("gone@example.com", .login, with: nil) == nil)
            #expect(try store.replace("ada@example.com", .login, with: nil) == codeRecord())
        }
    }
}

/// A code issued to ada@example.com for signing in by r1 and mailed again for r2, whose email is not yet known to be sent.
private func codeRecord() -> CodeRecord {
    CodeRecord(email: "ada@example.com", purpose: .login, digest: String(repeating: "ab", count: 32), recoveryDigest: String(repeating: "cd", count: 32),
               issuedBy: "r1", expiresAt: startDate.addingTimeInterval(600), sentAt: [startDate.addingTimeInterval(-60), startDate],
               resentAt: startDate.addingTimeInterval(90), nonce: "nonce-1", senders: ["r1", "r2"], unmailed: ["r2"])
}

private extension CodeStore {
    /// Replaces the record of `email` and `purpose` with `record`; the one there before.
    func replace(_ email: String, _ purpose: CodePurpose, with record: CodeRecord?) throws(StoreError) -> CodeRecord? {
        try update(email: email, purpose: purpose) { (stored) throws(StoreError) -> CodeRecord? in
            defer { stored = record }
            return stored
        }
    }
}
