import Backends
import Foundation
import SQLStores
import Support
@testable import TestSupport
import Testing

/// Each systemd unit of deploy/systemd started as systemd would start it, short of systemd itself (no PID 1 here):
/// its `ExecStart` with the unit's specifiers and `${CREDENTIALS_DIRECTORY}` expanded, the environment of its
/// `EnvironmentFile=`s (written as the units' comments say, with real stores: PostgreSQL roles per worker, SMTP, moto)
/// and `Environment=` lines, its `LoadCredential=` files (a missing one from its `SetCredential=` default) laid out as
/// systemd lays out `$CREDENTIALS_DIRECTORY` (0400 files in a 0500 directory, the service's user's), its
/// `StateDirectory=`, and run as a user of its own as `DynamicUser=yes` would. Each becomes ready (its /readyz on a
/// real broker, Tansu) and stops on SIGTERM with exit 0.
/// (`systemd-analyze verify` and the sandbox's exposure are `DeployFilesTests`'.)
@Suite(.tags(.live, .storeFree), .serialized) struct SystemdUnitTests {
    static let units = DeployFilesTests.deploy + "/systemd"
    static let dynamicUser: uid_t = 61_873

    @Test(.enabled(if: getuid() == 0, "runs each unit's command as a user of its own"))
    func eachUnitStartsWithItsEnvironmentAndCredentials() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("systemd-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let etc = root + "/etc/registrar"
        try FileManager.default.createDirectory(atPath: etc, withIntermediateDirectories: true)
        // The operator's files, as the units' comments describe them.
        let tansu = try TansuServer()
        _ = try runCommand(Binaries.path("registrar"), ["topics", "create", "--bootstrap", tansu.bootstrapServers,
                                                    "--replication-factor", "1", "--min-insync-replicas", "1"])
        _ = try runCommand(Binaries.path("registrar"), ["keys", "--keys-dir", etc + "/keys"])
        // The account role's event key in the middle of a rotation: its consumers load its previous public key from a file,
        // the other roles' previous keys are missing and come from SetCredential=, empty.
        _ = try runCommand(Binaries.path("registrar"), ["keys", "rotate-events", "--role", "account", "--keys-dir", etc + "/keys"])
        _ = try runCommand(Binaries.path("registrar"), ["keys", "distribute", "--keys-dir", etc + "/keys", "--to", etc + "/keys-by-process"])
        try FileManager.default.createDirectory(atPath: etc + "/kafka", withIntermediateDirectories: true)
        for principal in ["account-worker", "code-dispatch-worker", "image-worker", "profile-worker", "registrar-client"] {
            try Self.write("security.protocol=plaintext\n", to: etc + "/kafka/\(principal).kafka.properties")
        }
        try FileManager.default.createDirectory(atPath: etc + "/gateway", withIntermediateDirectories: true)
        _ = try runCommand("/usr/bin/openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
                                            "-subj", "/CN=localhost", "-keyout", etc + "/gateway/tls.key", "-out", etc + "/gateway/tls.crt"])
        try Self.write(#"{"clients": [{"id": "unit-client", "secret": "unit-test-secret"}]}"#, to: etc + "/gateway/gateway-clients.json")
        let stores = try Self.stores()
        var environment = ["registrar.env": "KAFKA_BOOTSTRAP_SERVERS=\(tansu.bootstrapServers)\n"]
        var ports: [String: Int] = [:]
        for (name, lines) in stores.files {
            let port = try freePort()
            ports[name] = port
            environment[name + ".env"] = (lines + ["REGISTRAR_METRICS_LISTEN=127.0.0.1:\(port)"]).joined(separator: "\n") + "\n"
        }
        environment["gateway.env"]! += "REGISTRAR_PUBLIC_KEY=\(try String(contentsOfFile: etc + "/keys/account-worker.seal.pub", encoding: .utf8))"
        for (file, text) in environment { try Self.write(text, to: etc + "/" + file) }

        let instances = ["account-worker", "code-dispatch-worker", "image-worker", "profile-worker"].map { ("registrar-worker@\($0).service", $0) }
        for (unit, instance) in instances + [("registrar-gateway.service", "gateway")] {
            let service = try Self.load(unit, root: root)
            let process = try service.start(root: root, user: Self.dynamicUser)
            defer { if process.isRunning { process.send(SIGKILL) } }
            let ready = await Self.waitUntilReady(port: try #require(ports[instance]), process: process)
            #expect(ready, "\(unit) is not ready: \(process.errorOutput.suffix(1500))")
            process.send(SIGTERM)
            #expect(await process.waitForExit() == 0, "\(unit) exits 0 on SIGTERM: \(process.errorOutput.suffix(800))")
            #expect(!process.errorOutput.contains("refusing to use it"), "\(unit): \(process.errorOutput.suffix(800))")
        }
    }

    /// A unit and its drop-ins, as systemd reads the settings these units use.
    struct Service {
        var name: String
        var instance: String?
        var execStart = ""
        var environmentFiles: [String] = []
        var environment: [String: String] = [:]
        var credentials: [(name: String, source: String)] = []
        /// `SetCredential=` values: a credential's contents when its `LoadCredential=` file is missing.
        var credentialDefaults: [String: String] = [:]
        var stateDirectory: String?

        /// Lays out what systemd would, under `root`, and starts `ExecStart` as `user` (a `DynamicUser=`).
        func start(root: String, user: uid_t) throws -> ChildProcess {
            let credentials = root + "/run/credentials/" + name
            try FileManager.default.createDirectory(atPath: credentials, withIntermediateDirectories: true)
            for (name, source) in self.credentials {
                let target = credentials + "/" + name
                if let fallback = credentialDefaults[name], !FileManager.default.fileExists(atPath: root + source) {
                    try fallback.write(toFile: target, atomically: false, encoding: .utf8)
                } else {
                    try FileManager.default.copyItem(atPath: root + source, toPath: target)
                }
                chmod(target, 0o400)
                chown(target, user, user)
            }
            chmod(credentials, 0o500)
            chown(credentials, user, user)
            var variables: [String: String] = ["CREDENTIALS_DIRECTORY": credentials, "PATH": "/usr/bin:/bin"]
            for file in environmentFiles {
                let text = try String(contentsOfFile: root + file, encoding: .utf8)
                for line in text.split(separator: "\n") where line.contains("=") {
                    let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
                    variables[parts[0]] = parts[1]
                }
            }
            for (key, value) in environment { variables[key] = expand(value, credentials: credentials, root: root) }
            if let stateDirectory {
                let state = root + "/var/lib/" + stateDirectory
                try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
                chmod(state, 0o700)
                chown(state, user, user)
            }
            // The one change to the command line: the gateway listens on a free port of 127.0.0.1, not 0.0.0.0:8443 here.
            let words = expand(execStart, credentials: credentials, root: root)
                .replacingOccurrences(of: "--host 0.0.0.0 --port 8443", with: "--host 127.0.0.1 --port \(try freePort())")
                .split(separator: " ").map(String.init)
            let command = try SystemdUnitTests.install(words[0], root: root)
            // systemd starts a service with its own environment only: `env -i` drops this process's.
            let assignments = variables.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            return try ChildProcess("/usr/bin/setpriv", ["--reuid=\(user)", "--regid=\(user)", "--clear-groups", "--", "/usr/bin/env", "-i"]
                                    + assignments + [command] + words.dropFirst(), errors: .captured)
        }

        /// `text` with the specifiers and variables these units use expanded (`/var/lib` under `root`).
        func expand(_ text: String, credentials: String, root: String) -> String {
            text.replacingOccurrences(of: "%i", with: instance ?? "")
                .replacingOccurrences(of: "%d", with: credentials)
                .replacingOccurrences(of: "${CREDENTIALS_DIRECTORY}", with: credentials)
                .replacingOccurrences(of: "/var/lib/", with: root + "/var/lib/")
        }
    }

    /// The unit `name` (an instance of a template, `registrar-worker@image-worker.service`, or a plain unit) with its drop-ins.
    static func load(_ name: String, root: String) throws -> Service {
        let instance = name.split(separator: "@").dropFirst().first.map { String($0.dropLast(".service".count)) }
        let template = instance == nil ? name : name.replacingOccurrences(of: "@\(instance!).", with: "@.")
        var service = Service(name: name, instance: instance)
        let files = [units + "/" + template, units + "/registrar-.service.d/sandbox.conf", units + "/\(name).d/keys.conf"]
        for file in files where FileManager.default.fileExists(atPath: file) {
            for line in try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n") where !line.hasPrefix("#") {
                guard let equals = line.firstIndex(of: "=") else { continue }
                let key = String(line[..<equals])
                let value = String(line[line.index(after: equals)...]).replacingOccurrences(of: "%i", with: instance ?? "")
                switch key {
                case "ExecStart": service.execStart = value
                case "EnvironmentFile": service.environmentFiles.append(value.hasPrefix("-") ? String(value.dropFirst()) : value)
                case "Environment":
                    let parts = value.split(separator: "=", maxSplits: 1).map(String.init)
                    service.environment[parts[0]] = parts[1]
                case "LoadCredential":
                    let parts = value.split(separator: ":", maxSplits: 1).map(String.init)
                    service.credentials.append((parts[0], parts[1]))
                case "SetCredential":
                    let name = value.prefix { $0 != ":" }
                    // C-style escapes, as systemd reads them (the units use \n only).
                    service.credentialDefaults[String(name)] = String(value.dropFirst(name.count + 1)).replacingOccurrences(of: #"\n"#, with: "\n")
                case "StateDirectory": service.stateDirectory = value
                default: break
                }
            }
        }
        return service
    }

    /// Each instance's own store settings, as the worker unit's comment lists them: PostgreSQL (migrated as its owner,
    /// each worker connecting as its own role), SMTP, moto.
    static func stores() throws -> (files: [String: [String]], servers: [AnyObject]) {
        let server = try PostgresServer.shared()
        let owner = try server.newDatabase()
        let prefix = "u\(UUID().uuidString.prefix(6).lowercased())_"
        var roles: [DatabaseAccess.Worker: String] = [:]
        for worker in DatabaseAccess.Worker.allCases { roles[worker] = prefix + worker.defaultRole }
        for role in roles.values { _ = try runCommand("/usr/bin/psql", [owner, "-q", "-c", "CREATE ROLE \(role) LOGIN"]) }
        try DatabaseSetup.migrate(accounts: owner, profiles: owner)
        _ = try DatabaseSetup.grant(accounts: owner, profiles: owner, roles: roles)
        func url(_ worker: DatabaseAccess.Worker) -> String { owner.replacingOccurrences(of: "postgres://postgres@", with: "postgres://\(roles[worker]!)@") }
        let mail = try SMTPServer()
        let moto = try MotoServer()
        _ = try runCommand("/usr/bin/curl", ["-sSf", "-X", "PUT", "\(moto.endpoint)/units"])
        let images = ["REGISTRAR_IMAGES=s3://units?endpoint=\(moto.endpoint)&region=us-east-1&path-style=true",
                      "AWS_ACCESS_KEY_ID=units", "AWS_SECRET_ACCESS_KEY=units-secret"]
        let smtp = "REGISTRAR_MAIL=smtp://127.0.0.1:\(mail.port)?tls=none"
        return ([
            "account-worker": ["REGISTRAR_ACCOUNTS=\(url(.accountWorker))", "REGISTRAR_PROFILES=\(url(.accountWorker))", smtp],
            "code-dispatch-worker": ["REGISTRAR_ACCOUNTS=\(url(.codeDispatchWorker))", smtp],
            "profile-worker": ["REGISTRAR_PROFILES=\(url(.profileWorker))"],
            "image-worker": images,
            "gateway": images,
        ], [mail, moto])
    }

    static func waitUntilReady(port: Int, process: ChildProcess) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(90)
        while ContinuousClock.now < deadline, process.isRunning {
            if let answer = try? runCommand("/usr/bin/curl", ["-fsS", "http://127.0.0.1:\(port)/readyz"]), !answer.isEmpty { return true }
            try? await Task.sleep(for: .milliseconds(250))
        }
        return false
    }

    /// Writes `text` to `path`, 0600 (systemd reads these as root).
    /// The unit's executable (`/usr/local/bin/<name>`) installed under `root` as an operator installs it, readable and
    /// executable by every user: the build directory may sit where the service's own user cannot reach (a 0700 home or
    /// temporary directory of the clone).
    static func install(_ executable: String, root: String) throws -> String {
        let installed = root + executable
        if !FileManager.default.fileExists(atPath: installed) {
            try FileManager.default.createDirectory(atPath: root + "/usr/local/bin", withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o755])
            let name = String(executable.split(separator: "/").last ?? "")
            try FileManager.default.copyItem(atPath: Binaries.path(name), toPath: installed)
            chmod(installed, 0o755)
        }
        return installed
    }

    static func write(_ text: String, to path: String) throws {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o600)
    }
}
