import Accounts
import Domain

/// The registration flow's `AvatarImaging` over libvips (`AvatarProcessor`), each refusal
/// reported with its contract reason code.
public struct VipsAvatarImaging: AvatarImaging {
    public var processor: AvatarProcessor

    public init(processor: AvatarProcessor) {
        self.processor = processor
    }

    public func process(_ original: [UInt8]) -> Result<[UInt8], Failure> {
        do {
            return .success(try processor.process(original).jpeg)
        } catch {
            return .failure(Failure(ReasonCode(error), error.message))
        }
    }

    public func defaultAvatar() -> [UInt8] {
        processor.defaultAvatar().jpeg
    }
}
