import Support

/// `kafka-tool`: operator commands around the Kafka library (a mock broker, produce, consume,
/// relay, benchmark, fault injection, the handshake relay in front of Tansu).
public enum KafkaTool {
    public static let subcommands: [CommandLineTool.Subcommand] = [
        .init("broker", BrokerCommand.spec.summary, run: BrokerCommand.run),
        .init("produce", ProduceCommand.spec.summary, run: ProduceCommand.run),
        .init("consume", ConsumeCommand.spec.summary, run: ConsumeCommand.run),
        .init("relay", RelayCommand.spec.summary, run: RelayCommand.run),
        .init("bench", BenchCommand.spec.summary, run: BenchCommand.run),
        .init("control", ControlCommand.spec.summary, run: ControlCommand.run),
        .init("handshake-relay", HandshakeRelayCommand.spec.summary, run: HandshakeRelayCommand.run),
    ]

    /// Runs `kafka-tool <command> …` (arguments without the program name).
    public static func main(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.dispatch(
            tool: "kafka-tool", summary: "Kafka operator tools", arguments, to: subcommands)
    }
}
