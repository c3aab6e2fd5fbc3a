import Backends
import Crypto
import Imaging
import ImagingAdapters
import Domain
import Registration
import Support
import WorkerRuntime

let spec = CommandSpec(
    name: "image-worker", summary: "process, store and delete avatars (ProfileImages/<uuid>.jpg)",
    options: ConnectionOptions.specs + BackendOptions.specs + [
        .value("avatar-size", "Side of the stored square avatar in pixels", environment: "REGISTRAR_AVATAR_SIZE", default: "512"),
        .value("jpeg-quality", "JPEG quality of stored avatars, 1–100", environment: "REGISTRAR_JPEG_QUALITY", default: "85"),
    ])

await CommandLineTool.exit {
    await CommandLineTool.run(Array(CommandLine.arguments.dropFirst()), spec: spec) { parsed in
        let shutdown = ShutdownSignal()
        let connection = try ConnectionOptions(parsed)
        var policy = AvatarPolicy()
        policy.outputSize = try parsed.integer("avatar-size") ?? policy.outputSize
        policy.jpegQuality = try parsed.integer("jpeg-quality") ?? policy.jpegQuality
        let step = AvatarStep(images: try BackendOptions(parsed, dataDirectory: connection.dataDirectory).objectStore(),
                              imaging: VipsAvatarImaging(processor: AvatarProcessor(policy: policy)), sha256: sha256Hex)
        let worker = try Worker(name: "image-worker", configuration: connection.kafka(clientID: "image-worker"),
                                routing: RoutingTable([step]))
        try await worker.run(until: shutdown)
        return .success
    }
}
