import Backends
import EventTransport
import Foundation
import HTTPServer
import Operations
import Support

/// `registrar console`: the operators' web page, reading Kafka and the stores; prints its URL on its first line.
public enum ConsoleCommand {
    public static let spec = CommandSpec(
        name: "registrar console", summary: "serve the operator console: workers' lag, sagas, outcomes, dead letters, audit",
        usage: "[--listen HOST:PORT] [--tls-cert PEM --tls-key PEM] [options]",
        options: [
            .value("listen", "Numeric address and port to serve on (port 0: any free one); plain HTTP only on loopback",
                   environment: "REGISTRAR_CONSOLE_LISTEN", default: "127.0.0.1:8090"),
            .value("refresh", "Seconds between the page's reloads", default: "5"),
            AuditCommand.graceOption,
        ] + TLSOptions.specs + ConnectionOptions.specs + BackendOptions.specs)

    public static func run(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: spec) { parsed in
            let connection = try ConnectionOptions(parsed)
            let tls = try TLSOptions.files(parsed, spec: spec)
            let listen = try parsed.required("listen")
            guard let (host, port) = HTTPServerConfiguration.hostAndPort(listen) else {
                throw UsageError.invalid("--listen expects host:port, e.g. 127.0.0.1:8090; got '\(listen)'", spec.helpText)
            }
            let configuration = HTTPServerConfiguration(host: host, port: port, tls: tls) { method, _ in
                method == "POST" ? Console.bodyLimit : 0
            }
            try configuration.validate()
            let console = try Console(kafka: connection.kafka(clientID: "registrar-console"), isLocalBroker: connection.bootstrapFile != nil,
                                      audit: try AuditCommand.audit(parsed),
                                      grace: try AuditCommand.grace(parsed), refresh: try parsed.integer("refresh") ?? 5, tls: tls != nil)
            let shutdown = ShutdownSignal()
            let server = try HTTPServer(configuration, handler: console.handle)
            FileHandle.standardOutput.write(Data((server.url(on: host) + "/\n").utf8))
            await shutdown.wait()
            await server.stop()
            return .success
        }
    }
}
