import Synchronization
internal import VipsShim

/// The picture for people without an avatar: a grey head-and-shoulders silhouette on a light ground.
enum DefaultAvatar {
    private static let background: [Double] = [0xDD, 0xE1, 0xE6]
    private static let figure: [Double] = [0x9A, 0xA3, 0xAD]

    /// Rendered pictures by size and quality: the picture is the same every time, and drawing and encoding
    /// it took a registration without an avatar more CPU than everything else the image worker does for it.
    private static let rendered = Mutex<[[Int]: ProcessedAvatar]>([:])

    static func render(size: Int, quality: Int) -> ProcessedAvatar {
        if let picture = rendered.withLock({ $0[[size, quality]] }) { return picture }
        let picture = draw(size: size, quality: quality)
        rendered.withLock { $0[[size, quality]] = picture }
        return picture
    }

    private static func draw(size: Int, quality: Int) -> ProcessedAvatar {
        func scaled(_ fraction: Double) -> Int32 { Int32((Double(size) * fraction).rounded()) }
        let head = VipsShimCircle(x: scaled(0.5), y: scaled(0.40), radius: scaled(0.19))
        let shoulders = VipsShimCircle(x: scaled(0.5), y: scaled(1.05), radius: scaled(0.42))
        do {
            return try Vips.circlesJPEG(
                size: size, background: background, foreground: figure, circles: [head, shoulders], quality: quality)
        } catch {
            preconditionFailure("libvips could not render the default avatar: \(error.message)")
        }
    }
}
