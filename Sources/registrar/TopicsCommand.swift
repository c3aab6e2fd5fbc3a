import Console
import Domain
import EventTransport
import Installation
import Kafka
import Support

/// `registrar topics create|check`: every topic and dead-letter topic of `Topic.all` on a real cluster.
enum TopicsCommand {
    static func run(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.dispatch(tool: "registrar topics", summary: "topics on a Kafka cluster", arguments, to: [
            .init("create", "Create every topic and dead-letter topic (existing ones are left as they are)", run: create),
            .init("check", "Report each missing or misconfigured topic; exit 1 if any", run: check),
            .init("acls", "Print the ACLs each worker and the clients need, as kafka-acls.sh commands", run: TopicsACLs.run),
        ])
    }

    static func spec(_ name: String, _ summary: String) -> CommandSpec {
        CommandSpec(name: "registrar topics \(name)", summary: summary, options: ConnectionOptions.commandSpecs + [
            .value("replication-factor", "Replicas of every partition (3 or more on a real cluster)", default: "1"),
            .value("min-insync-replicas", "min.insync.replicas of every topic (2 with 3 replicas)", default: "1"),
            .value("timeout", "Seconds each request to the cluster may take", default: "30"),
        ])
    }

    @Sendable static func create(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: spec("create", "create Registrar's topics")) { parsed in
            let (provisioner, connection) = try provisioner(parsed)
            for answer in try await connection.explainingBrokerTrouble({ try await provisioner.create() }) {
                print("\(answer.topic): \(answer.alreadyExisted ? "exists" : "created")")
            }
            return .success
        }
    }

    @Sendable static func check(_ arguments: [String]) async -> ExitCode {
        var checkSpec = spec("check", "check Registrar's topics")
        checkSpec.options.append(JSONOutput.option)
        return await CommandLineTool.run(arguments, spec: checkSpec) { parsed in
            let (provisioner, connection) = try provisioner(parsed)
            let discrepancies = try await connection.explainingBrokerTrouble { try await provisioner.check() }
            let agreeing = provisioner.table.count - Set(discrepancies.map(\.topic)).count
            if parsed.flag("json") {
                JSONOutput.print(["topics": provisioner.table.count, "agree": agreeing,
                                  "discrepancies": discrepancies.map { ["topic": $0.topic, "problem": $0.description] }])
            } else {
                discrepancies.forEach { print($0) }
                print("\(agreeing) of \(provisioner.table.count) topics agree")
            }
            return discrepancies.isEmpty ? .success : .failure
        }
    }

    /// The provisioner `parsed` configures, and its connection (which says why the broker could not be reached).
    static func provisioner(_ parsed: ParsedArguments) throws -> (TopicProvisioner, ConnectionOptions) {
        let replication = try TopicReplication(
            factor: parsed.positiveInteger("replication-factor", as: Int32.self) ?? 1,
            minInsyncReplicas: parsed.positiveInteger("min-insync-replicas", as: Int32.self) ?? 1)
        let timeout = try parsed.positiveInteger("timeout") ?? 30
        let connection = try ConnectionOptions(parsed, quietUnlessVerbose: true)
        let admin = try KafkaAdmin(configuration: connection.kafka(clientID: "registrar-topics"))
        return (TopicProvisioner(admin: admin, replication: replication, timeout: .seconds(timeout)), connection)
    }
}
