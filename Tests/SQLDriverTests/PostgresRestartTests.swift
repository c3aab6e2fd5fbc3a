import Domain
import Foundation
import Registration
import SQLStores
import Synchronization
@testable import TestSupport
import Testing

/// The stores ride out a PostgreSQL restart: in-flight calls fail transiently or are retried on new
/// connections, and nothing committed is lost.
@Suite(.tags(.production, .serial), .serialized) struct PostgresRestartTests {
    @Test func storesRecoverWhenTheServerRestartsMidRun() throws {
        let server = try PostgresServer()
        let store = try SQLAccountStore(database: PostgresDatabase(url: server.url(), connections: 4))
        let started = Mutex<[String]>([])
        let failures = Mutex<[StoreError]>([])
        let stop = Atomic(false)
        // Writers keep starting registrations while the server restarts; each retries what fails
        // transiently, as the worker runtime does.
        let writers = Thread.detachedGroup(4) { writer in
            var index = 0
            while !stop.load(ordering: .relaxed) {
                let saga = sagaRecord("w\(writer)-\(index)", email: "w\(writer)-\(index)@example.com")
                do throws(StoreError) {
                    if try store.start(saga, account: pendingAccount(for: saga)) != .emailTaken {
                        started.withLock { $0.append(saga.registrationId) }
                        index += 1
                    }
                } catch {
                    failures.withLock { $0.append(error) }
                    Thread.sleep(forTimeInterval: 0.05)
                }
            }
        }
        Thread.sleep(forTimeInterval: 0.3)
        try server.stop()
        Thread.sleep(forTimeInterval: 0.5)
        try server.start()
        Thread.sleep(forTimeInterval: 0.5)
        stop.store(true, ordering: .relaxed)
        writers.wait()

        #expect(failures.withLock { $0 }.allSatisfy { $0.kind == .transient })
        // Every start reported is stored, with its account; the store works after the restart.
        let stored = Set(try store.accounts().map(\.registrationId))
        #expect(Set(started.withLock { $0 }).isSubset(of: stored))
        let after = sagaRecord("after", email: "after@example.com")
        #expect(try store.start(after, account: pendingAccount(for: after)) == .started)
    }

    @Test func aCallDuringAShortOutageIsRetriedInsideTheStore() throws {
        let server = try PostgresServer()
        let store = try SQLProfileStore(database: PostgresDatabase(url: server.url()))
        let profile = Profile(name: "Ada", email: "ada@example.com", profileImage: "https://x/a.jpg", isMapLocationEnabled: false)
        try store.write(profile, uid: "u1", revision: 1)
        try server.stop()
        let restart = Thread.detachedGroup(1) { _ in
            Thread.sleep(forTimeInterval: 0.4)
            try? server.start()
        }
        // The store's own back-off (about 3 s over 6 attempts) outlasts the outage.
        #expect(try store.profile(uid: "u1") == profile)
        restart.wait()
    }
}

extension Thread {
    /// Starts `count` threads running `body(index)`; the group is done when all have returned.
    static func detachedGroup(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) -> DispatchGroup {
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            Thread {
                body(index)
                group.leave()
            }.start()
        }
        return group
    }
}
