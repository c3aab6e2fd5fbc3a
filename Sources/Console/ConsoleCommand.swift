import Backends
import EventTransport
import Foundation
import HTTPServer
import Support
import Synchronization

/// `registrar console`: the operators' web page, reading Kafka and the stores; prints its URL on its first line.
/// Started while the local broker has not written its address yet or its stores cannot be reached, it waits for
/// them, alive and not ready on the operations endpoint (`--metrics-listen`, saying why), rather than exiting; started
/// while its broker cannot be reached, it serves at once and reads the topics once the broker is back.
/// `registrar console add-operator NAME`: adds an operator (or a new password) to the operators file.
public enum ConsoleCommand {
    public static let spec = CommandSpec(
        name: "registrar console", summary: "serve the operator console: workers' lag, sagas, outcomes, dead letters, audit",
        usage: "--operators FILE [--listen HOST:PORT] [--server-name NAME…] [--tls-cert PEM --tls-key PEM] [options]   "
            + "| add-operator NAME --operators FILE",
        options: [
            operatorsOption,
            .value("listen", "Numeric address and port to serve on (port 0: any free one); plain HTTP only on loopback",
                   environment: "REGISTRAR_CONSOLE_LISTEN", default: "127.0.0.1:8090"),
            .value("server-name", "A host name the console answers to (its address, and localhost on loopback, always); "
                   + "a request naming any other in Host is refused", environment: "REGISTRAR_CONSOLE_SERVER_NAME", repeatable: true),
            .value("refresh", "Seconds between the page's reloads and the reads of Kafka", default: "5"),
            .value("audit-every", "Seconds between audits of the stores", default: "300"),
            .value("window", "The most messages of each partition the console reads and keeps (on a real cluster, of the last hour)",
                   default: "1000"),
            AuditCommand.graceOption,
            OperationsEndpoint.option,
        ] + TLSOptions.specs + ConnectionOptions.specs + BackendOptions.specs)

    static let operatorsOption = CommandSpec.Option.value(
        "operators", "The operators file (0600): name:argon2id-hash lines, made by `registrar console add-operator`",
        environment: "REGISTRAR_CONSOLE_OPERATORS")

    static let addOperatorSpec = CommandSpec(
        name: "registrar console add-operator", summary: "add an operator of the console, or set a new password",
        usage: "NAME --operators FILE [--password-file F]   (else the password on standard input or prompted)",
        options: [operatorsOption] + password.options)

    private static let password = SecretOption("password", "operator's password")

    public static func run(_ arguments: [String]) async -> ExitCode {
        if arguments.first == "add-operator" { return await addOperator(Array(arguments.dropFirst())) }
        return await CommandLineTool.run(arguments, spec: spec) { parsed in
            let tls = try TLSOptions.files(parsed, spec: spec)
            let listen = try parsed.required("listen")
            guard let (host, port) = HTTPServerConfiguration.hostAndPort(listen) else {
                throw UsageError.invalid("--listen expects host:port, e.g. 127.0.0.1:8090; got '\(listen)'", spec.helpText)
            }
            let configuration = HTTPServerConfiguration(host: host, port: port, tls: tls) { method, _ in
                method == "POST" ? Console.bodyLimit : 0
            }
            try configuration.validate()
            var settings = Console.Settings(operators: try OperatorFile(contentsOf: try parsed.required("operators")),
                                            hostNames: ConsoleGuard.hostNames(listeningOn: host, configured: parsed.values("server-name")))
            settings.tls = tls != nil
            settings.refresh = try parsed.positiveInteger("refresh") ?? 5
            settings.auditEvery = try parsed.positiveInteger("audit-every") ?? 300
            settings.perPartition = try parsed.positiveInteger("window") ?? 1000
            settings.grace = try AuditCommand.grace(parsed)
            let startup = StartupState()
            let opened = Mutex<Console?>(nil)
            let operations = try OperationsEndpoint.start(parsed, component: "console") {
                HealthReport(isAlive: true, notReadyBecause: startup.waitingFor.map { [$0] } ?? opened.withLock { $0 }?.notReadyBecause ?? [])
            }
            let shutdown = ShutdownSignal()
            let logger = Logger(component: "console")
            guard let connection = try await ConnectionOptions.awaitingBroker(parsed, until: shutdown, waiting: startup.waiting),
                  let audit = try await StartupWait.open("its stores", until: shutdown, state: startup, logger: logger, { try AuditCommand.audit(parsed) })
            else {
                await operations?.stop()
                return .success
            }
            startup.started()
            settings.isLocalBroker = connection.bootstrapFile != nil
            let console = try Console(kafka: connection.kafka(clientID: "registrar-console"), audit: audit, settings: settings)
            opened.withLock { $0 = console }
            let reading = Task { await console.run(following: connection.bootstrapFile) }
            let server = try HTTPServer(configuration, handler: console.handle)
            FileHandle.standardOutput.write(Data((server.url(on: host) + "/\n").utf8))
            await shutdown.wait()
            await server.stop()
            await operations?.stop()
            reading.cancel()
            await reading.value
            return .success
        }
    }

    private static func addOperator(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: addOperatorSpec) { parsed in
            let name = try parsed.positional(0, "operator name")
            let file = try parsed.required("operators")
            let secret = try SecretInput.standard.read([password], from: parsed)[0]
            do {
                try OperatorFile.add(name, password: secret, to: file)
            } catch let error as OperatorFileError {
                throw CommandFailure(error.description, exitCode: .usage)
            }
            print("operator \(name) can sign in to the console with --operators \(file)")
            return .success
        }
    }
}
