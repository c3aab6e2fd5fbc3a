import Foundation
import Support

/// Images for the tests, made by the `vips` command-line tool (libvips-tools).
enum Fixtures {
    /// A JPEG of `width`×`height` noise: incompressible, so its size grows with its pixels.
    static func noiseJPEG(width: Int, height: Int) async throws -> [UInt8] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("noise-\(UUID().uuidString).jpg").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let process = try ChildProcess("/usr/bin/vips", ["gaussnoise", path + "[Q=95]", String(width), String(height)])
        guard await process.waitForExit() == 0, let data = FileManager.default.contents(atPath: path) else {
            throw HarnessError("vips gaussnoise failed")
        }
        return Array(data)
    }

    /// Whether `bytes` start like a JPEG (SOI marker).
    static func isJPEG(_ bytes: [UInt8]) -> Bool { bytes.starts(with: [0xFF, 0xD8, 0xFF]) }
}
