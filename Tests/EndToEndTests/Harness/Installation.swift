import Backends
import Crypto
import Domain
import Foundation
import Kafka
import Registration

/// A whole Registrar installation for one test, however its workers run (`LocalSystem`: separate
/// processes; `InProcessSystem`: in the test process): what the tests read and change through it.
protocol Installation: AnyObject, Sendable {
    /// The data directory of its embedded stores, keys and logs.
    var directory: String { get }
    /// A client configuration for its broker.
    var kafka: KafkaConfiguration { get }
    /// The account worker's sealing key, which clients seal secrets to.
    var publicKey: SealingPublicKey { get }
    /// The stores, embedded or production (see `StoreLocation`).
    var backends: StoreLocation { get }
    /// The time the workers read now.
    var now: Date { get }
    /// Stops every worker and removes the data directory (unless kept for a post-mortem).
    func stop(keepingData: Bool) async
}

extension Installation {
    var logs: String { directory + "/logs" }

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

    /// A registration request as the CLI would publish it.
    func request(id: String = UUID().uuidString.lowercased(), email: String, password: String = "correct horse battery",
                 name: String = "Test User", avatar: [UInt8]? = nil) -> RegistrationRequested {
        RegistrationRequested(registrationId: id, email: email, name: name,
                              sealedPassword: Data(publicKey.seal(Array(password.utf8))).base64EncodedString(),
                              avatar: avatar.map { .inline(Data($0).base64EncodedString()) }, isMapLocationEnabled: false)
    }

    /// The audit's findings, with nothing in flight counted (grace 0).
    func audit() throws -> [RegistrationAudit.Finding] {
        try RegistrationAudit(accounts: try backends.accounts(), profiles: try backends.profiles(),
                              images: try backends.objects()).run(now: now, grace: .zero)
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

struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
