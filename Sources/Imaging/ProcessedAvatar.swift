/// An avatar ready to store: a metadata-free sRGB JPEG.
public struct ProcessedAvatar: Sendable, Equatable {
    public var jpeg: [UInt8]
    public var width: Int
    public var height: Int

    public init(jpeg: [UInt8], width: Int, height: Int) {
        self.jpeg = jpeg
        self.width = width
        self.height = height
    }
}
