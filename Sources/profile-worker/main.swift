import Backends
import Domain
import Registration
import Support
import WorkerRuntime

let spec = CommandSpec(name: "profile-worker", summary: "write and delete profiles (users/<uid>)",
                       options: ConnectionOptions.specs)

await CommandLineTool.exit {
    await CommandLineTool.run(Array(CommandLine.arguments.dropFirst()), spec: spec) { parsed in
        let shutdown = ShutdownSignal()
        let connection = try ConnectionOptions(parsed)
        let step = ProfileStep(profiles: try EmbeddedBackends(connection.dataDirectory).profiles())
        let worker = try Worker(name: "profile-worker", configuration: connection.kafka(clientID: "profile-worker"),
                                topics: [Topic.profileCommands], handler: step)
        try await worker.run(until: shutdown)
        return .success
    }
}
