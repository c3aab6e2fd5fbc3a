internal import VipsShim

/// The picture for people without an avatar: a grey head-and-shoulders silhouette on a light ground.
enum DefaultAvatar {
    private static let background: [Double] = [0xDD, 0xE1, 0xE6]
    private static let figure: [Double] = [0x9A, 0xA3, 0xAD]

    static func render(size: Int, quality: Int) -> ProcessedAvatar {
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
