/// Why an uploaded image was refused as an avatar.
public enum AvatarRejection: Error, Sendable, Equatable {
    case empty
    case tooLarge(bytes: Int)
    /// No image loader recognises the bytes.
    case notAnImage
    /// An image, but not of an allowed format; carries the format's name, e.g. `tiff`.
    case unsupportedFormat(String)
    /// The header or the pixel data is damaged or truncated; carries libvips' diagnostic text.
    case corrupt(String)
    /// Too many pixels or too long a side, from the header.
    case tooManyPixels(width: Int, height: Int)
    /// An animated GIF or WebP under ``AvatarPolicy/Animation/reject``.
    case animated

    /// A sentence for the person who uploaded the image; it never includes libvips' diagnostics.
    public var message: String {
        switch self {
        case .empty: "The image file is empty."
        case .tooLarge(let bytes): "The image file is too large (\(bytes) bytes)."
        case .notAnImage: "The file is not an image."
        case .unsupportedFormat(let format): "Images in \(format.uppercased()) format are not accepted."
        case .corrupt: "The image file is damaged or incomplete."
        case .tooManyPixels(let width, let height): "The image is too large (\(width)×\(height) pixels)."
        case .animated: "Animated images are not accepted."
        }
    }
}
