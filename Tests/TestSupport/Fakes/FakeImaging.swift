import Domain
import Registration

/// Image processing without images: bytes starting with `JPEG` are an image (stored as `processed:` + bytes),
/// `CORRUPT` is a broken one, anything else is not an image.
public struct FakeImaging: AvatarImaging {
    public static let defaultJPEG = Array("default avatar".utf8)

    public init() {}

    public func process(_ original: [UInt8]) -> Result<[UInt8], Failure> {
        if original.starts(with: Array("JPEG".utf8)) { return .success(Array("processed:".utf8) + original) }
        if original.starts(with: Array("CORRUPT".utf8)) { return .failure(Failure(.imageCorrupt, "The image is truncated.")) }
        return .failure(Failure(.imageNotAnImage, "This is not an image."))
    }

    public func defaultAvatar() -> [UInt8] { Self.defaultJPEG }
}
