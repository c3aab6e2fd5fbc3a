import Foundation
import Imaging
@testable import TestSupport
import Testing

@Suite(.tags(.unit)) struct AvatarProcessorTests {
    let processor = AvatarProcessor()

    /// Asserts `avatar` is a baseline sRGB JPEG of `side`×`side` that libvips decodes, without metadata segments.
    func expectCleanJPEG(_ avatar: ProcessedAvatar, side: Int) throws {
        #expect(avatar.width == side && avatar.height == side)
        #expect(Array(avatar.jpeg.prefix(3)) == [0xFF, 0xD8, 0xFF])
        #expect(try Fixtures.header("vips-loader", of: avatar.jpeg) == "jpegload")
        #expect(try Fixtures.header("width", of: avatar.jpeg) == String(side))
        #expect(try Fixtures.header("height", of: avatar.jpeg) == String(side))
        #expect(try Fixtures.header("bands", of: avatar.jpeg) == "3")
        let markers = Fixtures.jpegMarkers(avatar.jpeg)
        #expect(markers.last == 0xDA, "the scan starts after the header segments")
        #expect(!markers.contains(0xE1), "no EXIF or XMP (APP1)")
        #expect(!markers.contains(0xE2), "no ICC profile (APP2)")
        #expect(!markers.contains(0xED), "no IPTC (APP13)")
    }

    func expectColour(_ pixel: [Int], near expected: [UInt8], tolerance: Int = 30, _ comment: Comment? = nil) {
        #expect(pixel.count == 3 && zip(pixel, expected).allSatisfy { abs($0 - Int($1)) <= tolerance }, "\(pixel) ≉ \(expected). \(comment ?? "")")
    }

    // MARK: Accepted images

    @Test func jpegBecomesSquareJPEGOfOutputSize() throws {
        let jpeg = try Fixtures.convert(Fixtures.gradient(width: 1200, height: 800), to: "in.jpg")
        try expectCleanJPEG(processor.process(jpeg), side: 512)
    }

    @Test func smallPNGIsCroppedButNotScaledUp() throws {
        let png = try Fixtures.convert(Fixtures.redBlue(width: 300, height: 200), to: "in.png")
        let avatar = try processor.process(png)
        try expectCleanJPEG(avatar, side: 200)
        expectColour(try Fixtures.pixel(of: avatar.jpeg, x: 20, y: 100), near: Fixtures.red)
        expectColour(try Fixtures.pixel(of: avatar.jpeg, x: 180, y: 100), near: Fixtures.blue)
    }

    @Test func exifOrientationIsApplied() throws {
        // Stored 200×100, red left and blue right; orientation 6 means "rotate 90° clockwise to view",
        // so upright it is 100×200 with red on top, and its centre square is red above blue.
        let stored = try Fixtures.convert(Fixtures.redBlue(width: 200, height: 100), to: "in.jpg[Q=95]")
        let avatar = try processor.process(Fixtures.addingExif(to: stored, orientation: 6))
        try expectCleanJPEG(avatar, side: 100)
        expectColour(try Fixtures.pixel(of: avatar.jpeg, x: 75, y: 20), near: Fixtures.red, "top right is red once rotated")
        expectColour(try Fixtures.pixel(of: avatar.jpeg, x: 20, y: 80), near: Fixtures.blue, "bottom left is blue once rotated")
    }

    @Test func exifAndGPSAreStripped() throws {
        let stored = try Fixtures.convert(Fixtures.gradient(width: 64, height: 64), to: "in.jpg")
        let tagged = Fixtures.addingExif(to: stored, orientation: 1)
        #expect(try Fixtures.header("exif-ifd3-GPSLatitudeRef", of: tagged).hasPrefix("N"), "libvips sees the GPS tag")
        let avatar = try processor.process(tagged)
        try expectCleanJPEG(avatar, side: 64)
        #expect(avatar.jpeg.firstRange(of: Array("Exif".utf8)) == nil)
    }

    @Test func cmykJPEGBecomesSRGB() throws {
        let red = Fixtures.ppm(width: 64, height: 64) { _, _ in Fixtures.red }
        let withProfile = try Fixtures.make("cmyk.jpg", from: [red]) { inputs, output in
            ["icc_transform", inputs[0], output, "cmyk", "--input-profile", "srgb"]
        }
        #expect(try Fixtures.header("interpretation", of: withProfile).contains("CMYK"))
        let withoutProfile = try Fixtures.convert(withProfile, to: "plain.jpg[strip]")
        #expect(!Fixtures.jpegMarkers(withoutProfile).contains(0xE2), "no ICC profile: the generic CMYK one applies")
        for cmyk in [withProfile, withoutProfile] {
            let avatar = try processor.process(cmyk)
            try expectCleanJPEG(avatar, side: 64)
            expectColour(try Fixtures.pixel(of: avatar.jpeg, x: 32, y: 32), near: Fixtures.red, tolerance: 40)
        }
    }

    @Test func embeddedProfileIsConvertedToSRGBBeforeItIsDropped() throws {
        let red = Fixtures.ppm(width: 64, height: 64) { _, _ in Fixtures.red }
        let displayP3 = try Fixtures.make("p3.jpg", from: [red]) { inputs, output in
            ["icc_transform", inputs[0], output, "p3", "--input-profile", "srgb"]
        }
        expectColour(try Fixtures.pixel(of: displayP3, x: 32, y: 32), near: [234, 51, 35], tolerance: 10, "P3 numbers for sRGB red")
        let avatar = try processor.process(displayP3)
        try expectCleanJPEG(avatar, side: 64)
        expectColour(try Fixtures.pixel(of: avatar.jpeg, x: 32, y: 32), near: Fixtures.red, tolerance: 12)
    }

    @Test func transparencyIsFlattenedOnWhite() throws {
        let halfRed = try Fixtures.make("alpha.png", from: [Fixtures.ppm(width: 64, height: 64) { _, _ in Fixtures.red }]) {
            inputs, output in ["bandjoin_const", inputs[0], output, "128"]
        }
        let avatar = try processor.process(halfRed)
        try expectCleanJPEG(avatar, side: 64)
        expectColour(try Fixtures.pixel(of: avatar.jpeg, x: 32, y: 32), near: [255, 127, 127], tolerance: 12)
    }

    @Test func sixteenBitAndGreyscalePNGsWork() throws {
        let image = Fixtures.gradient(width: 80, height: 60)
        for space in ["rgb16", "b-w", "grey16"] {
            let png = try Fixtures.make("in.png", from: [image]) { inputs, output in ["colourspace", inputs[0], output, space] }
            try expectCleanJPEG(processor.process(png), side: 60)
        }
    }

    @Test func webpAndGIFWork() throws {
        let image = Fixtures.redBlue(width: 120, height: 90)
        try expectCleanJPEG(processor.process(Fixtures.convert(image, to: "in.webp")), side: 90)
        try expectCleanJPEG(processor.process(Fixtures.convert(image, to: "in.gif")), side: 90)
    }

    @Test(.enabled(if: Fixtures.libvipsCanLoadHEIF, "libvips has no HEIF module"))
    func heicWorks() throws {
        let heic = try Fixtures.convert(Fixtures.redBlue(width: 120, height: 90), to: "in.heic")
        try expectCleanJPEG(processor.process(heic), side: 90)
    }

    @Test(arguments: ["anim.gif", "anim.webp"])
    func animationKeepsTheFirstFrameOrIsRejected(file: String) throws {
        let frames = [Fixtures.redBlue(width: 100, height: 100), Fixtures.ppm(width: 100, height: 100) { _, _ in Fixtures.blue }]
        let animation = try Fixtures.make(file + "[page-height=100]", from: frames) { inputs, output in
            ["arrayjoin", inputs.joined(separator: " "), output, "--across", "1"]
        }
        #expect(try Fixtures.header("n-pages", of: animation) == "2")
        let avatar = try processor.process(animation)
        try expectCleanJPEG(avatar, side: 100)
        expectColour(try Fixtures.pixel(of: avatar.jpeg, x: 20, y: 50), near: Fixtures.red, "left of the first frame")

        let strict = AvatarProcessor(policy: AvatarPolicy(animation: .reject))
        #expect(throws: AvatarRejection.animated) { try strict.process(animation) }
    }

    @Test func processesConcurrently() async throws {
        let jpeg = try Fixtures.convert(Fixtures.gradient(width: 900, height: 700), to: "in.jpg")
        let processor = processor
        let sizes = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<6 { group.addTask { try processor.process(jpeg).width } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(sizes == Array(repeating: 512, count: 6))
    }

    // MARK: Refused images

    @Test func emptyInputIsRefused() {
        #expect(throws: AvatarRejection.empty) { try processor.process([]) }
    }

    @Test func oversizedInputIsRefusedUnread() throws {
        #expect(throws: AvatarRejection.tooLarge(bytes: 20 * 1024 * 1024 + 1)) {
            try processor.process([UInt8](repeating: 0, count: 20 * 1024 * 1024 + 1))
        }
        let jpeg = try Fixtures.convert(Fixtures.gradient(width: 64, height: 64), to: "in.jpg")
        let small = AvatarProcessor(policy: AvatarPolicy(maxInputBytes: 100))
        #expect(throws: AvatarRejection.tooLarge(bytes: jpeg.count)) { try small.process(jpeg) }
    }

    @Test func randomBytesAreNotAnImage() {
        var generator = SystemRandomNumberGenerator()
        let noise = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }
        #expect(throws: AvatarRejection.notAnImage) { try processor.process(noise) }
        #expect(throws: AvatarRejection.notAnImage) { try processor.process(Array("<html>hello</html>".utf8)) }
    }

    @Test func truncatedJPEGIsCorrupt() throws {
        let jpeg = try Fixtures.convert(Fixtures.gradient(width: 400, height: 400), to: "in.jpg")
        #expect {
            try processor.process(Array(jpeg.prefix(jpeg.count * 2 / 3)))
        } throws: { error in
            guard case .corrupt(let detail) = error as? AvatarRejection else { return false }
            return !detail.isEmpty
        }
        #expect(throws: AvatarRejection.self) { try processor.process(Array(jpeg.prefix(20))) }
    }

    @Test func decompressionBombIsRefusedFromItsHeader() throws {
        let bomb = try Fixtures.make("bomb.png", from: []) { _, output in ["black", output, "20000", "20000"] }
        #expect(bomb.count < 1_000_000, "400 megapixels in a small file")
        let start = ContinuousClock.now
        #expect(throws: AvatarRejection.tooManyPixels(width: 20000, height: 20000)) { try processor.process(bomb) }
        #expect(ContinuousClock.now - start < .seconds(1), "refused without decoding, which would take seconds")
    }

    @Test func overlongSideIsRefused() throws {
        let png = try Fixtures.convert(Fixtures.gradient(width: 200, height: 10), to: "in.png")
        let narrow = AvatarProcessor(policy: AvatarPolicy(maxDimension: 150))
        #expect(throws: AvatarRejection.tooManyPixels(width: 200, height: 10)) { try narrow.process(png) }
    }

    @Test func unsupportedFormatsAreNamed() throws {
        let image = Fixtures.gradient(width: 32, height: 32)
        #expect(throws: AvatarRejection.unsupportedFormat("tiff")) { try processor.process(Fixtures.convert(image, to: "in.tif")) }
        let jpegOnly = AvatarProcessor(policy: AvatarPolicy(allowedFormats: [.jpeg]))
        #expect(throws: AvatarRejection.unsupportedFormat("png")) { try jpegOnly.process(Fixtures.convert(image, to: "in.png")) }
    }

    @Test func untrustedLoadersAreNeverUsed() {
        let svg = Array(#"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>"#.utf8)
        #expect(throws: AvatarRejection.self) { try processor.process(svg) }
    }

    // MARK: Default avatar

    @Test func defaultAvatarIsASilhouetteOfOutputSize() throws {
        let avatar = processor.defaultAvatar()
        try expectCleanJPEG(avatar, side: 512)
        let corner = try Fixtures.pixel(of: avatar.jpeg, x: 10, y: 10)
        let head = try Fixtures.pixel(of: avatar.jpeg, x: 256, y: 205)
        #expect(corner != head)
        expectColour(head, near: [0x9A, 0xA3, 0xAD], tolerance: 8)
        try expectCleanJPEG(AvatarProcessor(policy: AvatarPolicy(outputSize: 128)).defaultAvatar(), side: 128)
    }

    @Test func messagesNeverCarryLibvipsDiagnostics() {
        #expect(!AvatarRejection.corrupt("VipsJpeg: Premature end of input file").message.contains("Vips"))
    }
}
