import EventTransport
import Foundation
import Kafka
import Support
@testable import TestSupport
import Testing
import WorkerRuntime

/// The deploy files' Kafka security, checked without a Kafka (none can run here): `deploy/kafka/make-credentials`
/// makes the CA, the broker's certificate and every principal's SCRAM credentials; every compose service and
/// Kubernetes workload that connects names a principal that has SCRAM credentials and ACLs (or is the super
/// user); and librdkafka (Debian's, the one the image ships) accepts each one's exact client settings, which
/// proves SASL/SCRAM and SSL are compiled in and the CA file loads.
@Suite(.tags(.live, .storeFree)) struct DeployKafkaSecurityTests {
    static let deploy = DeployFilesTests.deploy

    /// The credentials the script makes, in a fresh directory.
    static func credentials() async throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kafka-secrets-\(UUID().uuidString.prefix(8))").path
        let script = try ChildProcess("/bin/bash", [deploy + "/kafka/make-credentials", directory], errors: .standardOutput)
        var lines: [String] = []
        while let line = await script.nextLine() { lines.append(line) }
        #expect(await script.waitForExit() == 0, "\(lines)")
        return directory
    }

    /// The lines of the script `registrar topics acls --output` writes.
    static func aclScript() async throws -> [Substring] {
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("kafka-acls-\(UUID().uuidString.prefix(8)).sh").path
        defer { try? FileManager.default.removeItem(atPath: script) }
        let acls = try ChildProcess(Binaries.path("registrar"), ["topics", "acls", "--output", script], errors: .standardOutput)
        while await acls.nextLine() != nil {}
        #expect(await acls.waitForExit() == 0)
        return try String(contentsOfFile: script, encoding: .utf8).split(separator: "\n")
    }

    /// The principals the script `registrar topics acls --output` writes grants something to.
    static func principalsWithACLs() async throws -> Set<String> {
        let lines = try await aclScript()
        #expect(lines.first == "#!/bin/sh" && lines.contains("set -e"), "the ACL job stops at the first refused command")
        return Set(lines.compactMap { line in
            guard let start = line.range(of: "--allow-principal 'User:")?.upperBound, let end = line[start...].firstIndex(of: "'") else { return nil }
            return String(line[start..<end])
        })
    }

    /// The librdkafka properties of a principal's file the script wrote.
    static func properties(_ path: String) throws -> [String: String] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return Dictionary(text.split(separator: "\n").compactMap { line in
            line.firstIndex(of: "=").map { (String(line[..<$0]), String(line[line.index(after: $0)...])) }
        }, uniquingKeysWith: { $1 })
    }

    /// Expects `principal` to be able to connect at all (SCRAM credentials) and to be allowed what its role
    /// needs (ACLs, or the broker's super user), and librdkafka to take `environment` as a producer's settings.
    static func expectConnects(_ principal: String, environment: [String: String], credentials: String, acls: Set<String>,
                               in place: String) throws {
        let scram = try String(contentsOfFile: credentials + "/scram-credentials", encoding: .utf8)
        #expect(scram.contains("SCRAM-SHA-512=[name=\(principal),password="), "\(place): \(principal) has no SCRAM credentials")
        let broker = try String(contentsOfFile: credentials + "/broker.properties", encoding: .utf8)
        let superUser = broker.split(separator: "\n").contains { $0.hasPrefix("super.users=") && $0.contains("User:\(principal);") }
        #expect(acls.contains(principal) || (principal == "admin" && superUser), "\(place): \(principal) has no ACLs")
        let spec = CommandSpec(name: "client", summary: "test", options: ConnectionOptions.specs)
        let connection = try ConnectionOptions(ParsedArguments([], spec: spec, environment: environment))
        #expect(connection.kafkaProperties["security.protocol"] == "SASL_SSL", "\(place)")
        #expect(connection.kafkaProperties["sasl.mechanism"] == "SCRAM-SHA-512", "\(place)")
        #expect(connection.kafkaProperties["sasl.username"] == principal, "\(place)")
        #expect(throws: Never.self, "\(place): librdkafka refuses the settings") { _ = try KafkaProducer(configuration: connection.kafka(clientID: place)) }
    }

    /// `environment` with each container path a mount gives replaced by the file it mounts from `credentials`,
    /// and the broker replaced by a closed local port (librdkafka connects in the background only).
    static func onThisHost(_ environment: [String: String], mounts: [(source: String, target: String)]) -> [String: String] {
        environment.mapValues { value in
            mounts.reduce(value) { $0.replacingOccurrences(of: $1.target, with: $1.source) }
        }.merging(["KAFKA_BOOTSTRAP_SERVERS": "127.0.0.1:1"], uniquingKeysWith: { $1 })
    }

    /// The principal a service following accounts uses: credentials beside the others, and ACLs to read `account.events`
    /// in its group and nothing else.
    @Test func theEventsConsumerIsAPrincipalThatMayOnlyReadAccountEvents() async throws {
        let credentials = try await Self.credentials()
        defer { try? FileManager.default.removeItem(atPath: credentials) }
        let file = credentials + "/registrar-events.kafka.properties"
        try Self.expectConnects("registrar-events", environment: ["KAFKA_PROPERTIES_FILE": file, "KAFKA_BOOTSTRAP_SERVERS": "127.0.0.1:1"],
                                credentials: credentials, acls: try await Self.principalsWithACLs(), in: "the events consumer")
        let granted = try await Self.aclScript()
            .filter { $0.contains("'User:registrar-events'") }.map { String($0.split(separator: "'").last ?? "") }
        #expect(granted == [" --operation Read --operation Describe --topic account.events", " --operation Read --group registrar-events"])
    }

    @Test func everyComposeClientIsAPrincipalWithCredentialsACLsAndSettingsLibrdkafkaAccepts() async throws {
        let credentials = try await Self.credentials()
        defer { try? FileManager.default.removeItem(atPath: credentials) }
        let acls = try await Self.principalsWithACLs()
        let compose = try #require(try await DeployFilesTests.yaml(Self.deploy + "/compose.yaml").first as? [String: Any])
        let services = try #require(compose["services"] as? [String: [String: Any]])
        var principals: [String: String] = [:]
        for (name, service) in services {
            let environment = (service["environment"] as? [String: Any])?.mapValues { "\($0)" } ?? [:]
            guard environment["KAFKA_BOOTSTRAP_SERVERS"] != nil else { continue }
            let mounts = ((service["volumes"] as? [String]) ?? []).compactMap { volume -> (source: String, target: String)? in
                let parts = volume.split(separator: ":").map(String.init)
                guard parts.count >= 2, parts[0].hasPrefix("./trial/kafka/") else { return nil }
                return (credentials + "/" + parts[0].dropFirst("./trial/kafka/".count), parts[1])
            }
            let file = try #require(environment["KAFKA_PROPERTIES_FILE"], "\(name) connects without a credentials file")
            let source = try #require(mounts.first { $0.target == file }?.source, "\(name) mounts no \(file)")
            let principal = try #require(try Self.properties(source)["sasl.username"])
            principals[name] = principal
            try Self.expectConnects(principal, environment: Self.onThisHost(environment, mounts: mounts), credentials: credentials,
                                    acls: acls, in: "compose service \(name)")
        }
        #expect(principals == ["topics": "admin", "account-worker": "account-worker", "image-worker": "image-worker",
                               "profile-worker": "profile-worker", "code-dispatch-worker": "code-dispatch-worker", "gateway": "registrar-client",
                               "console": "registrar-operator"])
        // The broker: SASL_SSL listeners only, besides the controller's on the container's loopback; ACLs enforced.
        let broker = try Self.properties(credentials + "/broker.properties")
        #expect(broker["listener.security.protocol.map"] == "CONTROLLER:PLAINTEXT,INTERNAL:SASL_SSL,EXTERNAL:SASL_SSL")
        #expect(broker["listeners"]?.contains("CONTROLLER://localhost:") == true)
        #expect(broker["allow.everyone.if.no.acl.found"] == "false")
        #expect(broker["authorizer.class.name"] == "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
        // The broker's certificate is the CA's, for the names the clients dial.
        let verify = try ChildProcess("/bin/sh", ["-c", "openssl verify -CAfile \(credentials)/ca.pem \(credentials)/broker.pem"
                                                  + " && openssl x509 -noout -ext subjectAltName -in \(credentials)/broker.pem"], errors: .standardOutput)
        var lines: [String] = []
        while let line = await verify.nextLine() { lines.append(line) }
        #expect(await verify.waitForExit() == 0, "\(lines)")
        #expect(lines.contains { $0.contains("DNS:kafka") && $0.contains("DNS:localhost") }, "\(lines)")
        // Every file is the caller's alone, but the CA's certificate, which every client reads.
        for file in try FileManager.default.contentsOfDirectory(atPath: credentials) {
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: credentials + "/" + file)[.posixPermissions] as? Int)
            #expect(mode == (file == "ca.pem" ? 0o644 : 0o600), "\(file) is \(String(mode, radix: 8))")
        }
        // The ACL job applies exactly what `registrar topics acls` derives, as admin.
        let script = try #require(services["acls-script"]?["command"] as? [String])
        #expect(Array(script.prefix(3)) == ["registrar", "topics", "acls"] && script.contains("/etc/kafka/secrets/admin.properties"))
        let workers = ["account-worker", "image-worker", "profile-worker", "code-dispatch-worker"]
        for worker in workers + ["gateway"] {
            let dependencies = (services[worker]?["depends_on"] as? [String: Any]).map { Array($0.keys) } ?? []
            #expect(worker == "gateway" || dependencies.contains("acls"), "\(worker) starts before the ACLs")
        }
    }

    @Test func everyKubernetesWorkloadMountsItsOwnPrincipal() async throws {
        let credentials = try await Self.credentials()
        defer { try? FileManager.default.removeItem(atPath: credentials) }
        let acls = try await Self.principalsWithACLs()
        let documents = try await DeployFilesTests.yaml(Self.deploy + "/kubernetes/registrar.yaml").compactMap { $0 as? [String: Any] }
        let config = try #require(documents.first { $0["kind"] as? String == "ConfigMap" }?["data"] as? [String: String])
        let principalOf = ["account-worker": "account-worker", "image-worker": "image-worker", "profile-worker": "profile-worker",
                           "code-dispatch-worker": "code-dispatch-worker", "gateway": "registrar-client", "registrar-topics": "admin"]
        var seen: Set<String> = []
        for document in documents where ["Deployment", "Job"].contains(document["kind"] as? String) {
            let name = try #require((document["metadata"] as? [String: Any])?["name"] as? String)
            let pod = try #require(((document["spec"] as? [String: Any])?["template"] as? [String: Any])?["spec"] as? [String: Any])
            guard name != "registrar-migrate" else { continue }  // the databases only
            let volumes = try #require(pod["volumes"] as? [[String: Any]])
            let secret = try #require((volumes.first { $0["name"] as? String == "kafka" }?["secret"] as? [String: Any])?["secretName"] as? String)
            #expect(secret == (name == "registrar-topics" ? "registrar-admin-kafka" : "registrar-\(name)-kafka"), "\(name) mounts \(secret)")
            let principal = try #require(principalOf[name], "\(name) is not a known workload")
            let mounts = [(source: credentials + "/\(principal).kafka.properties", target: "/kafka/kafka.properties"),
                          (source: credentials + "/ca.pem", target: "/kafka/ca.pem")]
            try Self.expectConnects(principal, environment: Self.onThisHost(config, mounts: mounts), credentials: credentials, acls: acls,
                                    in: "kubernetes \(name)")
            seen.insert(name)
        }
        #expect(seen == Set(principalOf.keys))
    }
}
