import Kafka
import Support

/// `kafka-tool control --control PATH <command…>`: one fault-injection command for a running broker.
enum ControlCommand {
    static let spec = CommandSpec(
        name: "control", summary: "Send a fault-injection command to a running 'kafka-tool broker'",
        usage: "--control PATH <broker-down ID | broker-up ID | rtt ID MS | request-errors APIKEY ERR[,ERR…] | "
            + "clear-request-errors APIKEY | create-topic NAME PARTITIONS [RF] | leader TOPIC PARTITION BROKER>",
        options: [.value("control", "The broker's control socket", environment: "KAFKA_BROKER_CONTROL")])

    @Sendable static func run(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: spec) { arguments in
            let path = try arguments.required("control")
            let command: MockClusterCommand
            do {
                command = try MockClusterCommand(line: arguments.positionals.joined(separator: " "))
            } catch {
                throw UsageError.invalid("\(error)", spec.helpText)
            }
            try BrokerControl(socketPath: path).send(command)
            print("ok")
            return .success
        }
    }
}
