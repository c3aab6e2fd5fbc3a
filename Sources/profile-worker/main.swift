import AccountChanges
import AccountChanges
import Backends
import Domain
import Registration
import Support
import WorkerRuntime

let spec = CommandSpec(name: "profile-worker", summary: "write, update and delete profiles (users/<uid>)",
                       options: ConnectionOptions.specs + BackendOptions.specs)

await CommandLineTool.exit {
    await CommandLineTool.run(Array(CommandLine.arguments.dropFirst()), spec: spec) { parsed in
        let shutdown = ShutdownSignal()
        let connection = try ConnectionOptions(parsed)
        let profiles = try BackendOptions(parsed, dataDirectory: connection.dataDirectory).profileStore()
        let worker = try Worker(name: "profile-worker", configuration: connection.kafka(clientID: "profile-worker"),
                                routing: RoutingTable([ProfileStep(profiles: profiles), ProfileEmailStep(profiles: profiles)]))
        try await worker.run(until: shutdown)
        return .success
    }
}
