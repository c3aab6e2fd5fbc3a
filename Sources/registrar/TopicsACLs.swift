import Domain
import Foundation
import Support
import WorkerAssembly

/// `registrar topics acls`: the Kafka ACLs of every principal, as `kafka-acls.sh` commands, derived from
/// the routing tables and the event types' producers (`TopicAccess`).
enum TopicsACLs {
    static let spec = CommandSpec(name: "registrar topics acls", summary: "print the ACLs each principal needs, as kafka-acls.sh commands", options: [
        .value("principal-prefix", "Prefix of each worker's principal: a worker named W is <prefix>W", default: "User:"),
        .value("client", "Principal of the clients (the gateway, the CLI): write requests, read outcomes", default: "User:registrar-client"),
        .value("operator", "Principal of the operator's tools (dlq, status, audit, operator): read all, write the input topics",
               default: "User:registrar-operator"),
        .value("events-consumer", "Principal of a service reading account.events (in the consumer group --events-group)",
               default: "User:registrar-events"),
        .value("events-group", "The consumer group of --events-consumer", default: "registrar-events"),
        .value("command-config", "The admin client's properties file, passed to kafka-acls.sh", default: "admin.properties"),
        .value("bootstrap", "The cluster, passed to kafka-acls.sh", environment: "KAFKA_BOOTSTRAP_SERVERS", default: "kafka:9093"),
        .value("output", "Write the commands to this file, a shell script, instead of standard output"),
    ])

    @Sendable static func run(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: spec) { parsed in
            let prefix = try parsed.required("principal-prefix")
            let accesses = TopicAccess.workers.map { kind in
                var access = TopicAccess.worker(kind)
                access.principal = prefix + access.principal
                return access
            } + [TopicAccess.client(named: try parsed.required("client")), TopicAccess.operatorTools(named: try parsed.required("operator")),
                 TopicAccess.eventsConsumer(named: try parsed.required("events-consumer"), group: try parsed.required("events-group"))]
            let base = "kafka-acls.sh --bootstrap-server \(try parsed.required("bootstrap")) --command-config \(try parsed.required("command-config")) --add"
            var script = ["#!/bin/sh", "# Registrar's ACLs: each principal may do only what its role needs (registrar topics acls).", "set -e"]
            for access in accesses {
                script.append("# \(access.principal)")
                script += commands(for: access).map { "\(base) --allow-principal '\(access.principal)' \($0)" }
            }
            let text = script.joined(separator: "\n") + "\n"
            guard let output = parsed.value("output") else {
                print(text, terminator: "")
                return .success
            }
            guard FileManager.default.createFile(atPath: output, contents: Data(text.utf8)) else {
                throw UsageError.invalid("cannot write --output \(output)", "")
            }
            return .success
        }
    }

    /// The arguments of each `kafka-acls.sh --add` for `access`, sorted.
    static func commands(for access: TopicAccess) -> [String] {
        access.reads.sorted().map { "--operation Read --operation Describe --topic \($0)" }
            + access.writes.sorted().map { "--operation Write --operation Describe --topic \($0)" }
            + (access.group.map { ["--operation Read --group \($0)"] } ?? [])
    }
}
