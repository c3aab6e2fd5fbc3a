import Accounts
import Backends

/// The object store an installation is configured with: S3 or a directory by its URL, else the data directory's.
extension BackendOptions {
    public func objectStore() throws -> any ObjectStore {
        try images.map(Self.objectStore(at:)) ?? EmbeddedBackends(dataDirectory).objects()
    }

    /// The object store at `url`; S3 credentials come from the standard AWS environment variables.
    public static func objectStore(at url: String) throws -> any ObjectStore {
        let location = try StoreURL(url, accepting: [.s3, .file])
        return location.scheme == .s3
            ? try S3ObjectStore(S3Configuration(url: url))
            : try FileObjectStore(root: location.path)
    }
}

extension EmbeddedBackends {
    /// The file object store, `<data>/objects`.
    public func objects() throws -> any ObjectStore {
        try FileObjectStore(root: try layout().objects)
    }
}
