import Foundation
import Support
@testable import TestSupport

/// Test images made on the fly: pixels written as PPM here, converted by the `vips` command
/// (Debian package libvips-tools), and outputs inspected with `vipsheader` and `vips getpoint`.
enum Fixtures {
    struct CommandFailed: Error, CustomStringConvertible {
        var description: String
    }

    typealias RGB = [UInt8]
    static let red: RGB = [255, 0, 0]
    static let blue: RGB = [0, 0, 255]

    /// Whether this libvips has its optional HEIF module (libheif), which reads HEIC and AVIF.
    static var libvipsCanLoadHEIF: Bool {
        (try? run("vips", ["-l", "foreign"]))?.contains("heifload_buffer") ?? false
    }

    /// A binary PPM image whose pixel at (x, y) is `pixel(x, y)`.
    static func ppm(width: Int, height: Int, pixel: (Int, Int) -> RGB) -> [UInt8] {
        var bytes = Array("P6\n\(width) \(height)\n255\n".utf8)
        for y in 0..<height {
            for x in 0..<width { bytes += pixel(x, y) }
        }
        return bytes
    }

    /// Left half red, right half blue.
    static func redBlue(width: Int, height: Int) -> [UInt8] {
        ppm(width: width, height: height) { x, _ in x < width / 2 ? red : blue }
    }

    /// A smooth colour gradient, so encoders produce realistic amounts of data.
    static func gradient(width: Int, height: Int) -> [UInt8] {
        ppm(width: width, height: height) { x, y in
            [UInt8(x * 255 / width), UInt8(y * 255 / height), UInt8((x + y) * 255 / (width + height))]
        }
    }

    /// Runs `vips` with `arguments(inputPaths, outputPath)`, where the inputs are `inputs` saved as PPM
    /// files, and returns the bytes of the output file `output` (its extension picks the format).
    static func make(
        _ output: String, from inputs: [[UInt8]], _ arguments: ([String], String) -> [String]
    ) throws -> [UInt8] {
        try inTemporaryDirectory { directory in
            let paths = try inputs.enumerated().map { index, image in
                let path = "\(directory)/input\(index).ppm"
                try Data(image).write(to: URL(fileURLWithPath: path))
                return path
            }
            let outputPath = "\(directory)/\(output)"
            try run("vips", arguments(paths, outputPath))
            return try [UInt8](Data(contentsOf: URL(fileURLWithPath: String(outputPath.prefix { $0 != "[" }))))
        }
    }

    /// `image` converted by `vips copy` to the format of `output`, e.g. `image.png` or `image.jpg[Q=95]`.
    static func convert(_ image: [UInt8], to output: String) throws -> [UInt8] {
        try make(output, from: [image]) { inputs, output in ["copy", inputs[0], output] }
    }

    /// A header field of `image` as printed by `vipsheader -f`, e.g. `width` or `interpretation`.
    static func header(_ field: String, of image: [UInt8]) throws -> String {
        try withFile(image) { try run("vipsheader", ["-f", field, $0]) }
    }

    /// The band values of `image` at (x, y).
    static func pixel(of image: [UInt8], x: Int, y: Int) throws -> [Int] {
        try withFile(image) { try run("vips", ["getpoint", $0, String(x), String(y)]) }
            .split(separator: " ").compactMap { Double($0) }.map { Int($0.rounded()) }
    }

    /// The JPEG markers before the image data (SOS), e.g. 0xE1 for APP1 (EXIF or XMP).
    static func jpegMarkers(_ jpeg: [UInt8]) -> [UInt8] {
        var markers: [UInt8] = []
        var index = 2
        while index + 3 < jpeg.count, jpeg[index] == 0xFF {
            let marker = jpeg[index + 1]
            markers.append(marker)
            if marker == 0xDA { break }
            index += 2 + Int(jpeg[index + 2]) << 8 + Int(jpeg[index + 3])
        }
        return markers
    }

    /// `jpeg` with an EXIF APP1 segment holding `orientation` and a GPS position, inserted after SOI.
    static func addingExif(to jpeg: [UInt8], orientation: UInt16) -> [UInt8] {
        func u16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        func u32(_ value: Int) -> [UInt8] { u16(value >> 16) + u16(value & 0xFFFF) }
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: [UInt8]) -> [UInt8] {
            u16(tag) + u16(type) + u32(count) + value + [UInt8](repeating: 0, count: 4 - value.count)
        }
        let gpsOffset = 8 + 2 + 2 * 12 + 4
        let latitudeOffset = gpsOffset + 2 + 2 * 12 + 4
        let tiff = Array("MM".utf8) + u16(42) + u32(8)
            + u16(2) + entry(0x0112, 3, 1, u16(Int(orientation))) + entry(0x8825, 4, 1, u32(gpsOffset)) + u32(0)
            + u16(2) + entry(0x0001, 2, 2, Array("N\0".utf8)) + entry(0x0002, 5, 3, u32(latitudeOffset)) + u32(0)
            + u32(52) + u32(1) + u32(31) + u32(1) + u32(0) + u32(1)
        let payload = Array("Exif\0\0".utf8) + tiff
        return Array(jpeg.prefix(2)) + [0xFF, 0xE1] + u16(payload.count + 2) + payload + jpeg.dropFirst(2)
    }

    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> String {
        let (status, text) = try ChildProcess.run("/usr/bin/env", [tool] + arguments, errors: .discarded)
        guard status == 0 else {
            throw CommandFailed(description: "\(tool) \(arguments.joined(separator: " ")) exited with \(status)")
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func withFile<Result>(_ bytes: [UInt8], _ body: (String) throws -> Result) throws -> Result {
        try inTemporaryDirectory { directory in
            let path = directory + "/image"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return try body(path)
        }
    }

    private static func inTemporaryDirectory<Result>(_ body: (String) throws -> Result) throws -> Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imaging-tests-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try body(directory)
    }
}
