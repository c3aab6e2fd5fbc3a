import Domain

extension ReasonCode {
    /// The contract's reason code for an image refused as an avatar.
    public init(_ rejection: AvatarRejection) {
        switch rejection {
        case .empty: self = .imageEmpty
        case .tooLarge: self = .imageTooLarge
        case .notAnImage: self = .imageNotAnImage
        case .unsupportedFormat: self = .imageUnsupportedFormat
        case .corrupt: self = .imageCorrupt
        case .tooManyPixels: self = .imageTooManyPixels
        case .animated: self = .imageAnimated
        }
    }
}
