internal import VipsShim

/// Turns uploaded bytes into a safe, small, square JPEG avatar with libvips.
///
/// Checks run cheapest first: size in bytes, format from the magic bytes, dimensions from the header,
/// and only then decoding. Decoding applies the EXIF orientation, converts to sRGB, crops the centred
/// square, scales down to ``AvatarPolicy/outputSize`` (shrinking on load for JPEG, WebP and HEIF) and
/// drops all metadata, so no location or camera data survives.
///
/// Thread-safe; each call blocks its thread for the decode (about 0.2 s for a 12-megapixel JPEG).
public struct AvatarProcessor: Sendable {
    public let policy: AvatarPolicy

    public init(policy: AvatarPolicy = .init()) {
        precondition(policy.outputSize > 0, "outputSize must be positive")
        precondition((1...100).contains(policy.jpegQuality), "jpegQuality must be within 1...100")
        self.policy = policy
    }

    /// Validates and converts `bytes`, or says why it cannot be an avatar.
    public func process(_ bytes: [UInt8]) throws(AvatarRejection) -> ProcessedAvatar {
        guard !bytes.isEmpty else { throw .empty }
        guard bytes.count <= policy.maxInputBytes else { throw .tooLarge(bytes: bytes.count) }
        return try bytes.withUnsafeBytes { image in Result { () throws(AvatarRejection) in try process(image) } }.get()
    }

    /// A generated default avatar of ``AvatarPolicy/outputSize``, for accounts without a picture.
    public func defaultAvatar() -> ProcessedAvatar {
        DefaultAvatar.render(size: policy.outputSize, quality: policy.jpegQuality)
    }

    private func process(_ image: UnsafeRawBufferPointer) throws(AvatarRejection) -> ProcessedAvatar {
        guard let loader = Vips.loader(for: image) else { throw .notAnImage }
        guard let format = ImageFormat(loader: loader), policy.allowedFormats.contains(format) else {
            throw .unsupportedFormat(ImageFormat.formatName(ofLoader: loader))
        }

        let header: VipsShimHeader
        do {
            header = try Vips.header(of: image)
        } catch {
            throw .corrupt(error.message)
        }
        let (width, height) = (Int(header.width), Int(header.height))
        guard width <= policy.maxDimension, height <= policy.maxDimension, width * height <= policy.maxPixels else {
            throw .tooManyPixels(width: width, height: height)
        }
        if format.isAnimatable, header.pages > 1, policy.animation == .reject { throw .animated }

        do {
            let side = min(policy.outputSize, width, height)
            return try Vips.thumbnailJPEG(of: image, size: side, quality: policy.jpegQuality)
        } catch {
            throw .corrupt(error.message)
        }
    }
}
