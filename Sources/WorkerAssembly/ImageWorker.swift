import Backends
import Domain
import Registration
import Support

/// The image worker: processes, stores and deletes avatars. Its stack: `ImageAssembly`.
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
}
