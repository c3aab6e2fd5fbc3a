import ImagingAdapters
import Backends
import Crypto
import Domain
import Foundation
import Imaging
import Registration
import Support

/// The image worker: processes, stores and deletes avatars.
public enum ImageWorker: WorkerKind {
    public static let role = WorkerRole.image
    public static let summary = "process, store and delete avatars (ProfileImages/<uuid>.jpg)"
    public static let steps: [any EventHandler.Type] = [AvatarStep.self]
    public static let options = BackendOptions.imagesSpecs + [
        .value("avatar-size", "Side of the stored square avatar in pixels", environment: "REGISTRAR_AVATAR_SIZE", default: "512"),
        .value("jpeg-quality", "JPEG quality of stored avatars, 1–100", environment: "REGISTRAR_JPEG_QUALITY", default: "85"),
        .value("staging-retention", "Seconds a staged avatar upload is kept (longer than the saga deadline and the seal window, "
               + "which a request published that long ago has outlived); older ones are deleted", environment: "REGISTRAR_STAGING_RETENTION",
               default: "600"),
    ]

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
