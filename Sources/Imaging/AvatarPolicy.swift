import Domain

/// Limits and output settings for avatar processing.
public struct AvatarPolicy: Sendable, Equatable {
    /// What to do with animated GIF and WebP images.
    public enum Animation: Sendable, Equatable {
        /// Keep the first frame as a still image.
        case useFirstFrame
        /// Refuse with ``AvatarRejection/animated``.
        case reject
    }

    /// Inputs longer than this are refused unread.
    public var maxInputBytes: Int
    /// Width × height above this is refused from the header alone, before any pixel is decoded.
    public var maxPixels: Int
    /// Either side above this is refused from the header alone.
    public var maxDimension: Int
    /// The side of the square output. Images are cropped to their centred square and scaled down to
    /// this size; smaller images are cropped but never scaled up, so their output is smaller.
    public var outputSize: Int
    /// JPEG quality, 1...100.
    public var jpegQuality: Int
    /// Accepted input formats; others are refused with ``AvatarRejection/unsupportedFormat(_:)``.
    public var allowedFormats: Set<ImageFormat>
    /// What to do with animated GIF and WebP images; by default the first frame is used.
    public var animation: Animation

    public init(
        maxInputBytes: Int = ContractLimits.avatarBytes,
        maxPixels: Int = ContractLimits.avatarPixels,
        maxDimension: Int = ContractLimits.avatarSide,
        outputSize: Int = ContractLimits.storedAvatarSide,
        jpegQuality: Int = 85,
        allowedFormats: Set<ImageFormat> = Set(ImageFormat.allCases),
        animation: Animation = .useFirstFrame
    ) {
        self.maxInputBytes = maxInputBytes
        self.maxPixels = maxPixels
        self.maxDimension = maxDimension
        self.outputSize = outputSize
        self.jpegQuality = jpegQuality
        self.allowedFormats = allowedFormats
        self.animation = animation
    }
}
