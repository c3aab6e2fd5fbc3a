import Support

/// `kafka-tool handshake-relay`: a `HandshakeRelay` until SIGTERM/SIGINT (development and tests: Tansu behind it).
enum HandshakeRelayCommand {
    static let spec = CommandSpec(
        name: "handshake-relay",
        summary: "Relay a Tansu broker for librdkafka 2.0.2 clients (development only); prints its address as the first line",
        usage: "--broker HOST:PORT [--listen HOST:PORT]",
        options: [
            .value("broker", "The broker relayed to; it must advertise the relay's address"),
            .value("listen", "Where the relay listens (port 0: a free one)", default: "127.0.0.1:0"),
        ])

    @Sendable static func run(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: spec) { arguments in
            let logger = Logger(component: "handshake-relay")
            let broker = try arguments.required("broker")
            let listen = arguments.value("listen") ?? "127.0.0.1:0"
            let shutdown = ShutdownSignal()
            let relay = try HandshakeRelay(listen: listen, broker: broker)
            let host = listen[..<(listen.lastIndex(of: ":") ?? listen.endIndex)]
            JSONLines.emitRaw("\(host):\(relay.port)")
            logger.info("relaying", ["listen": "\(host):\(relay.port)", "broker": broker])
            await shutdown.wait()
            relay.close()
            return .success
        }
    }
}
