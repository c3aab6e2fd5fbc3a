internal import VipsShim

/// A libvips failure, with its diagnostic text.
struct VipsFailure: Error {
    var message: String
}

/// Swift face of the C shim: buffers in, values out, libvips memory released.
enum Vips {
    private static let errorCapacity = 512

    /// Starts libvips once per process; stopping the process is the only sane answer if it cannot start.
    static func start() {
        _ = started
    }

    private static let started: Void = {
        precondition(vips_shim_init() == 0, "libvips could not be initialised")
    }()

    /// The nickname of the loader recognising `image`, e.g. `jpegload_buffer`.
    static func loader(for image: UnsafeRawBufferPointer) -> String? {
        start()
        var name = [CChar](repeating: 0, count: 64)
        guard vips_shim_find_loader(image.baseAddress, image.count, &name, name.count) == 0 else { return nil }
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func header(of image: UnsafeRawBufferPointer) throws(VipsFailure) -> VipsShimHeader {
        start()
        var header = VipsShimHeader()
        try call { vips_shim_read_header(image.baseAddress, image.count, &header, $0, $1) }
        return header
    }

    static func thumbnailJPEG(of image: UnsafeRawBufferPointer, size: Int, quality: Int) throws(VipsFailure) -> ProcessedAvatar {
        start()
        return try jpeg { jpeg, error, capacity in
            vips_shim_thumbnail_jpeg(image.baseAddress, image.count, Int32(size), Int32(quality), &jpeg, error, capacity)
        }
    }

    static func circlesJPEG(
        size: Int, background: [Double], foreground: [Double], circles: [VipsShimCircle], quality: Int
    ) throws(VipsFailure) -> ProcessedAvatar {
        start()
        precondition(background.count == 3 && foreground.count == 3, "colours are sRGB triples")
        return try jpeg { jpeg, error, capacity in
            vips_shim_circles_jpeg(
                Int32(size), background, foreground, circles, Int32(circles.count), Int32(quality), &jpeg, error, capacity)
        }
    }

    /// Runs a shim function that fills a ``VipsShimJPEG``, copying the bytes out and freeing them.
    private static func jpeg(
        _ body: (inout VipsShimJPEG, UnsafeMutablePointer<CChar>, Int) -> Int32
    ) throws(VipsFailure) -> ProcessedAvatar {
        var jpeg = VipsShimJPEG()
        defer { vips_shim_jpeg_free(&jpeg) }
        try call { body(&jpeg, $0, $1) }
        let bytes = [UInt8](UnsafeRawBufferPointer(start: jpeg.data, count: jpeg.length))
        return ProcessedAvatar(jpeg: bytes, width: Int(jpeg.width), height: Int(jpeg.height))
    }

    /// Runs a shim function taking an error buffer, throwing its text if the function returns non-zero.
    private static func call(_ body: (UnsafeMutablePointer<CChar>, Int) -> Int32) throws(VipsFailure) {
        var error = [CChar](repeating: 0, count: errorCapacity)
        let status = error.withUnsafeMutableBufferPointer { body($0.baseAddress!, $0.count) }
        guard status == 0 else {
            let text = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw VipsFailure(message: text.trimmingWhitespace())
        }
    }
}

private extension String {
    func trimmingWhitespace() -> String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
