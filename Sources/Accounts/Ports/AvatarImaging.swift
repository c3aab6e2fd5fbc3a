import Domain
/// Decodes, validates and re-encodes avatars; implemented with libvips outside the domain.
public protocol AvatarImaging: Sendable {
    /// The JPEG to store, or the reason the image is refused.
    func process(_ original: [UInt8]) -> Result<[UInt8], Failure>
    /// The JPEG stored when the user chose no avatar.
    func defaultAvatar() -> [UInt8]
}
