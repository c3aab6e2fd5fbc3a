import KafkaCommands
import Support

await CommandLineTool.exit {
    await CommandLineTool.dispatch(
        tool: "registrar", summary: "sign-up and sign-in through Kafka topics",
        Array(CommandLine.arguments.dropFirst()),
        to: [
            .init("broker", "Host a local Kafka broker (librdkafka mock cluster) with Registrar's topics", run: BrokerCommand.run),
            .init("keys", "Create the account worker's sealing key pair in the data directory", run: KeysCommand.run),
            .init("seal", "Print a password sealed to the account worker's public key", run: SealCommand.run),
            .init("register", "Publish a registration and wait for its outcome", run: RegisterCommand.run),
            .init("status", "Show where a registration stands: its path through the topics", run: StatusCommand.run),
            .init("audit", "Check every store for half-registered users", run: AuditCommand.run),
            .init("dlq", "Inspect and replay dead-lettered messages", run: DeadLetterCommand.run),
            .init("demo", "Start a broker and the four workers, register sample users, print each saga", run: DemoCommand.run),
        ])
}
