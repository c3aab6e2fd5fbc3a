import Backends
import Crypto
import Domain
import Foundation
import Imaging
import Registration
import S3Store
import Support
import WorkerAssembly

/// The image worker's stack: the object store (S3 or files) and libvips. No SQL store.
extension ImageWorker: RunnableWorker {
    /// Reads the time for the sweep of staged uploads only. Waits (throws transiently) while the image store cannot be reached.
    public static func stack(_ parsed: ParsedArguments, dataDirectory: String,
                             clock: @escaping @Sendable () -> Date) throws -> WorkerStack {
        var policy = AvatarPolicy()
        policy.outputSize = try parsed.integer("avatar-size") ?? policy.outputSize
        policy.jpegQuality = try parsed.integer("jpeg-quality") ?? policy.jpegQuality
        let images = try BackendOptions(parsed, dataDirectory: dataDirectory).objectStore()
        try images.probe()
        let step = AvatarStep(images: images,
                              imaging: VipsAvatarImaging(processor: AvatarProcessor(policy: policy)), sha256: sha256Hex)
        let retention = Double(try parsed.integer("staging-retention") ?? 600)
        return WorkerStack(name: name, routing: RoutingTable([step]), periodic: {
            try step.sweepStaged(changedBefore: clock().addingTimeInterval(-retention))
            return []
        })
    }
}
