import Imaging
import Domain
import Registration

/// The image worker's `AvatarImaging`: libvips through the `Imaging` module, with its
/// refusals mapped onto the contract's reason codes.
struct VipsAvatarImaging: AvatarImaging {
    var processor: AvatarProcessor

    func process(_ original: [UInt8]) -> Result<[UInt8], Failure> {
        do {
            return .success(try processor.process(original).jpeg)
        } catch {
            return .failure(Failure(ReasonCode(rawValue: error.reasonCode) ?? .imageCorrupt, error.message))
        }
    }

    func defaultAvatar() -> [UInt8] {
        processor.defaultAvatar().jpeg
    }
}
