import DevTools
import Support

// The demo, chaos runs and benchmarks start a local installation (a broker, workers, a gateway) as child processes:
// stopped with the command when it is asked to stop. (The broker is one process, which stops by itself.)
if ["demo", "chaos", "bench"].contains(CommandLine.arguments.dropFirst().first) { ChildProcess.stopAllOnSignal() }

await CommandLineTool.exit(
    tool: "registrar-dev", summary: "Registrar's development tools: a local broker, the demo, chaos runs and benchmarks",
    subcommands: [
        .init("broker", "Host a local Kafka broker (librdkafka mock cluster) with Registrar's topics", run: BrokerCommand.run),
        .init("demo", "Start a broker and the four workers, register sample users, print each saga", run: DemoCommand.run),
        .init("chaos", "Register users while killing workers, failing brokers and stores; check nothing is lost", run: ChaosCommand.run),
        .init("bench", "Benchmarks: `bench sign-in`, `bench registrations`, `bench gateway`, `bench console`",
              tool: "registrar-dev bench", toolSummary: "benchmarks", subcommands: [
            .init("sign-in", "Time refused password sign-ins: unknown email, with a password, code-only", run: BenchCommand.run),
            .init("registrations", "Registrations end to end against the argon2id bound, per process CPU and memory",
                  run: RegistrationBenchCommand.run),
            .init("gateway", "Requests/s and p50/p99 through the gateway (wrk) next to the client library", run: GatewayBenchCommand.run),
            .init("console", "The operator console's answer time on a topic of a million messages", run: ConsoleBenchCommand.run),
        ]),
    ])
