import Domain
import Foundation
import Kafka
import Support
@testable import TestSupport
import Testing

/// `registrar topics create|check` against noida-db, an independent Kafka-protocol server with the Admin API,
/// and its refusal on the local mock broker, which has no CreateTopics.
@Suite(.tags(.live), .serialized) struct TopicsCommandTests {
    @Test func createMakesEveryTopicOfTheTableAndCheckAgrees() async throws {
        let server = try NoidaServer()
        let created = try await Self.registrar(["topics", "create", "--bootstrap", server.bootstrapServers])
        #expect(created.status == 0, "\(created.output)")
        #expect(created.output.split(separator: "\n").map(String.init) == Topic.all.map { "\($0.name): created" })

        let described = try await KafkaAdmin(configuration: KafkaConfiguration(bootstrapServers: server.bootstrapServers, clientID: "test"))
            .describeTopics(timeout: .seconds(10))
        let partitions = Dictionary(described.map { ($0.name, $0.partitions) }, uniquingKeysWith: { first, _ in first })
        for spec in Topic.all {
            #expect(partitions[spec.name] == Int(spec.partitions), "\(spec.name) exists with \(spec.partitions) partitions")
        }

        let checked = try await Self.registrar(["topics", "check"], environment: ["KAFKA_BOOTSTRAP_SERVERS": server.bootstrapServers])
        #expect(checked.status == 0, "\(checked.output)")
        #expect(checked.output.contains("\(Topic.all.count) of \(Topic.all.count) topics agree"))

        let again = try await Self.registrar(["topics", "create", "--bootstrap", server.bootstrapServers])
        #expect(again.status == 0, "\(again.output)")
        #expect(again.output.split(separator: "\n").map(String.init) == Topic.all.map { "\($0.name): exists" })
    }

    @Test func checkNamesEachMissingAndMisconfiguredTopic() async throws {
        let server = try NoidaServer()
        let admin = try KafkaAdmin(configuration: KafkaConfiguration(bootstrapServers: server.bootstrapServers, clientID: "test"))
        let planted = try await admin.createTopics([NewTopic(
            name: Topic.authRequests, partitions: 2, replicationFactor: 1,
            configuration: ["retention.ms": "3600000", "cleanup.policy": "compact"])], timeout: .seconds(10))
        #expect(planted.map(\.error) == [nil])

        let checked = try await Self.registrar(["topics", "check", "--bootstrap", server.bootstrapServers])
        #expect(checked.status == 1)
        let lines = Set(checked.output.split(separator: "\n").map(String.init))
        for spec in Topic.all where spec.name != Topic.authRequests {
            #expect(lines.contains("\(spec.name): missing"), "\(checked.output)")
        }
        #expect(lines.isSuperset(of: [
            "auth.requests: 2 partitions, expected 6",
            "auth.requests: retention.ms is 3600000, expected 604800000",
            "auth.requests: cleanup.policy is compact, expected delete",
            "0 of \(Topic.all.count) topics agree",
        ]), "\(checked.output)")

        let json = try await Self.registrar(["topics", "check", "--bootstrap", server.bootstrapServers, "--json"])
        #expect(json.status == 1)
        let answer = try #require(try JSONSerialization.jsonObject(with: Data((json.output.split(separator: "\n").first ?? "").utf8)) as? [String: Any],
                                    "\(json.output)")
        #expect(answer["topics"] as? Int == Topic.all.count && answer["agree"] as? Int == 0)
        let problems = (answer["discrepancies"] as? [[String: String]] ?? []).filter { $0["topic"] == Topic.authRequests }.compactMap { $0["problem"] }
        #expect(problems.contains("auth.requests: 2 partitions, expected 6"), "\(problems)")

        let created = try await Self.registrar(["topics", "create", "--bootstrap", server.bootstrapServers])
        #expect(created.status == 0, "\(created.output)")
        #expect(created.output.contains("auth.requests: exists"), "an existing topic is left as it is")
        let rechecked = try await Self.registrar(["topics", "check", "--bootstrap", server.bootstrapServers,
                                                  "--replication-factor", "3", "--min-insync-replicas", "2"])
        #expect(rechecked.status == 1)
        #expect(!rechecked.output.contains("missing"), "\(rechecked.output)")
        #expect(rechecked.output.contains("auth.requests: 2 partitions, expected 6"))
        #expect(rechecked.output.contains("code.requests: replication factor 1, expected 3"), "\(rechecked.output)")
        #expect(rechecked.output.contains("code.requests: min.insync.replicas is 1, expected 2"), "\(rechecked.output)")
    }

    @Test func createAndCheckRefuseTheLocalMockBrokerAtOnce() async throws {
        let cluster = try MockCluster(brokers: 1)
        try cluster.createTopics(Topic.all.map { ($0.name, $0.partitions) })  // as `registrar-dev broker` does
        for verb in ["create", "check"] {
            let clock = ContinuousClock()
            let start = clock.now
            let refused = try await Self.registrar(["topics", verb, "--bootstrap", cluster.bootstrapServers])
            #expect(refused.status == 1)
            #expect(clock.now - start < .seconds(10), "refused without waiting for a controller until the timeout")
            #expect(refused.output.contains("names none of its brokers as controller"), "\(refused.output)")
            #expect(refused.output.contains("It has no CreateTopics"), "\(refused.output)")
        }
    }

    @Test func theComposeFileCreatesTheTopicsWithOptionsTheCommandHas() async throws {
        let script = """
            import json, sys, yaml
            services = yaml.safe_load(open(sys.argv[1]))["services"]
            print(json.dumps([s.get("command") or [] for s in services.values()]))
            """
        let python = try ChildProcess("/usr/bin/python3", ["-c", script, Binaries.packageRoot + "/deploy/compose.yaml"])
        let commands = try JSONDecoder().decode([[String]].self, from: Data(try #require(await python.nextLine()).utf8))
        #expect(await python.waitForExit() == 0)
        let create = try #require(commands.first { $0.starts(with: ["registrar", "topics", "create"]) }, "a service runs topics create")
        let help = try await Self.registrar(["topics", "create", "--help"])
        for option in create.filter({ $0.hasPrefix("--") }) {
            #expect(help.output.contains("  \(option) "), "registrar topics create has \(option)")
        }
        #expect(!FileManager.default.fileExists(atPath: Binaries.packageRoot + "/deploy/create-topics.sh"))
    }

    /// Runs `registrar` to its end: its exit status and its standard output and error.
    static func registrar(_ arguments: [String], environment: [String: String] = [:]) async throws -> (status: Int32, output: String) {
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("topics-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: errors) }
        let process = try ChildProcess(Binaries.path("registrar"), arguments, environment: environment, errors: .file(errors))
        var lines: [String] = []
        while let line = await process.nextLine() { lines.append(line) }
        let status = await process.waitForExit()
        lines += ((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        return (status, lines.joined(separator: "\n"))
    }
}
