/// An image format that ``AvatarProcessor`` can accept, recognised by its magic bytes.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable {
    case jpeg
    case png
    case webp
    case gif
    /// HEIC and AVIF, when libvips has its libheif module.
    case heif

    /// Formats whose extra pages are animation frames rather than alternative images.
    var isAnimatable: Bool {
        self == .gif || self == .webp
    }

    /// The format read by a libvips loader such as `jpegload_buffer`, if it is one of ours.
    init?(loader: String) {
        self.init(rawValue: Self.formatName(ofLoader: loader))
    }

    /// `tiff` for `tiffload_buffer`; the name reported for unsupported formats.
    static func formatName(ofLoader loader: String) -> String {
        loader.hasSuffix("load_buffer") ? String(loader.dropLast("load_buffer".count)) : loader
    }
}
