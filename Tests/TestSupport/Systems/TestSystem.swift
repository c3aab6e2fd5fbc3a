import Backends
import Crypto
import Domain
import Foundation
import Kafka
import RegistrarClient
import Registration

/// A whole Registrar installation for one test, whatever its tier: its workers as processes (`LiveSystem`), in the
/// test process on a mock cluster (`InProcessSystem`), or their stacks driven without Kafka (`KafkaFreeSystem`).
/// What the tests publish, await, read and change through it; a test written against it runs on every tier.
protocol FlowSystem: AnyObject, Sendable {
    /// The data directory of its embedded stores, keys and logs.
    var directory: String { get }
    /// Seals requests as a client would, and opens what their outcomes seal to it.
    var sealing: any RequestSealing { get }
    /// The stores, embedded or production (see `StoreLocation`).
    var backends: StoreLocation { get }
    /// The time the workers read now.
    var now: Date { get }
    /// Publishes `event` on its topic as any client could.
    func publish(_ event: Event) async throws
    /// Publishes `request` and returns its outcome.
    func send(_ request: Event, timeout: Duration) async throws -> Event
    /// Every registration outcome published so far, by registration id (a redelivered saga may publish its outcome twice).
    func outcomes() async throws -> [String: [Event]]
    /// Stops every worker and removes the data directory (unless kept for a post-mortem).
    func stop(keepingData: Bool) async
    /// Lets `seconds` pass for the workers: moves their clock on the Kafka-free and in-process tiers; on the real
    /// binaries real time passes by itself.
    func letTimePass(seconds: Double)
}

/// A system with a broker (`LiveSystem`, `InProcessSystem`): its Kafka configuration and the client the tests
/// publish and await through (`RegistrarClient`, as the CLI uses it).
protocol TestSystem: FlowSystem {
    /// A client configuration for its broker.
    var kafka: KafkaConfiguration { get }
    var client: RegistrarClient { get }
    /// Holds the worker `name` (frozen, or stopped): it takes nothing until `resume`.
    func hold(_ name: String) async throws
    /// Lets a held worker go on (thawed, or started again).
    func resume(_ name: String) async throws
}

extension TestSystem {
    var sealing: any RequestSealing { client }

    func publish(_ event: Event) async throws { try await client.publish(event) }

    func send(_ request: Event, timeout: Duration) async throws -> Event {
        try await client.send(request, timeout: timeout)
    }
}

extension FlowSystem {
    var logs: String { directory + "/logs" }
    /// The account worker's sealing key, which clients seal secrets to.
    var publicKey: SealingPublicKey { sealing.publicKey }

    /// Runs `body` with this started installation and stops it afterwards, keeping its data and logs when `body` throws.
    func run(_ body: (Self) async throws -> Void) async throws {
        do {
            try await body(self)
        } catch {
            await stop(keepingData: true)
            FileHandle.standardError.write(Data("kept data and logs of the failed test in \(directory)\n".utf8))
            throw error
        }
        await stop(keepingData: false)
    }

    /// A registration request as the CLI would publish it (the avatar inline, whatever its size), with the register
    /// code mailed to `email` for it, read from the mail.
    func request(id: String = UUID().uuidString.lowercased(), email: String, password: String = "correct horse battery",
                 name: String = "Test User", avatar: [UInt8]? = nil) async throws -> RegistrationRequested {
        try sealing.registration(id: id, email: email, password: password, code: try await code(for: email, .register), name: name,
                                 avatar: avatar)
    }

    /// Publishes `request` and returns its outcome within two minutes (a liveness bound: the in-process chain runs
    /// dozens of systems at once on two cores, at a lower priority than the other chains).
    func send(_ request: Event) async throws -> Event {
        try await send(request, timeout: .seconds(120))
    }

    /// Publishes registration requests.
    func publish(_ requests: [RegistrationRequested]) async throws {
        for request in requests { try await publish(.registrationRequested(request)) }
    }

    /// Waits until every id in `ids` has an outcome; returns them. Fails after `timeout`.
    func waitForOutcomes(_ ids: [String], timeout: Duration = .seconds(90)) async throws -> [String: [Event]] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let outcomes = try await self.outcomes()
            if ids.allSatisfy({ outcomes[$0] != nil }) { return outcomes }
            guard ContinuousClock.now < deadline else {
                throw HarnessError("no outcome within \(timeout) for \(ids.filter { outcomes[$0] == nil })")
            }
            try await Task.sleep(for: .milliseconds(250))
        }
    }

    /// The audit's findings, with nothing in flight counted (grace 0).
    func audit() throws -> [RegistrationAudit.Finding] {
        try RegistrationAudit(accounts: try backends.accounts(), profiles: try backends.profiles(),
                              images: try backends.objects()).run(now: now, grace: .zero)
    }

    /// How many accounts, profiles and stored objects there are (the image worker's tombstones, records of deleted
    /// avatars, aside): a test on a shared system compares them before and after to see what it left behind.
    func counts() throws -> StoreCounts {
        StoreCounts(accounts: try backends.accounts().accounts().count, profiles: try backends.profiles().profiles().count,
                    images: try backends.objects().list(prefix: "ProfileImages/").count,
                    objects: try backends.objects().list(prefix: "").filter { !$0.key.hasPrefix("tombstones/") }.count)
    }

    /// Makes the profile store refuse every write from now on (a trigger raising an error).
    func refuseProfileWrites() async throws {
        try await backends.executeOnProfiles(
            sqlite: "CREATE TRIGGER refuse BEFORE INSERT ON profiles BEGIN SELECT RAISE(ABORT, 'refused by the test'); END;",
            postgres: "CREATE FUNCTION refuse() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$ LANGUAGE plpgsql; "
                + "CREATE TRIGGER refuse BEFORE INSERT OR UPDATE ON profiles FOR EACH ROW EXECUTE FUNCTION refuse();",
            logs: logs)
    }

    /// Empties the profile image of `uid`, leaving an incomplete profile.
    func blankProfileImage(of uid: String) async throws {
        let sql = "UPDATE profiles SET profile_image = '' WHERE uid = '\(uid)'"
        try await backends.executeOnProfiles(sqlite: sql, postgres: sql, logs: logs)
    }
}

/// The number of records in each store of a system.
struct StoreCounts: Equatable, CustomStringConvertible {
    var accounts: Int
    var profiles: Int
    var images: Int
    var objects: Int

    var description: String { "\(accounts) accounts, \(profiles) profiles, \(images) profile images, \(objects) objects" }
}

struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension Sequence {
    /// The results of `transform` on each element, one after another.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
