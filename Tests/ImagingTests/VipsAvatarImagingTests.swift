import Domain
import Imaging
@testable import TestSupport
import Testing

@Suite(.tags(.unit)) struct VipsAvatarImagingTests {
    @Test func eachRejectionHasItsContractReasonCode() {
        let rejections: [AvatarRejection] = [
            .empty, .tooLarge(bytes: 1), .notAnImage, .unsupportedFormat("tiff"), .corrupt("x"),
            .tooManyPixels(width: 1, height: 1), .animated,
        ]
        #expect(rejections.map { ReasonCode($0).rawValue } == [
            "image_empty", "image_too_large", "image_not_an_image", "image_unsupported_format", "image_corrupt",
            "image_too_many_pixels", "image_animated",
        ])
    }

    @Test func refusedImageFailsWithReasonAndMessage() throws {
        let imaging = VipsAvatarImaging(processor: AvatarProcessor())
        #expect(imaging.process([]) == .failure(Failure(.imageEmpty, AvatarRejection.empty.message)))
        #expect(imaging.process(Array("not an image".utf8))
            == .failure(Failure(.imageNotAnImage, AvatarRejection.notAnImage.message)))
        let tiff = try Fixtures.convert(Fixtures.redBlue(width: 8, height: 8), to: "in.tif")
        #expect(imaging.process(tiff)
            == .failure(Failure(.imageUnsupportedFormat, AvatarRejection.unsupportedFormat("tiff").message)))
    }

    @Test func acceptedImageBecomesTheProcessorsJPEG() throws {
        let imaging = VipsAvatarImaging(processor: AvatarProcessor(policy: AvatarPolicy(outputSize: 64)))
        let png = try Fixtures.convert(Fixtures.redBlue(width: 100, height: 100), to: "in.png")
        let jpeg = try imaging.process(png).get()
        #expect(try Fixtures.header("width", of: jpeg) == "64")
        #expect(imaging.defaultAvatar() == AvatarProcessor(policy: AvatarPolicy(outputSize: 64)).defaultAvatar().jpeg)
    }
}
