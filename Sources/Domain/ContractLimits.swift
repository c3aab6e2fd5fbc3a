/// Every limit the contract publishes, in one place: the workers enforce these values, and
/// `contract/events.schema.json` states each of them (`ContractLimitTests` compares the two both ways).
public enum ContractLimits {
    /// The largest message body a worker decodes (900 KiB); a larger one is dead-lettered as `too_large`.
    public static let messageBytes = 900 * 1024
    /// The longest id that keys a flow (registration or request id), in characters.
    public static let idCharacters = 128
    /// The longest email address, in UTF-8 bytes after trimming and lower-casing (RFC 5321's path less its brackets).
    public static let emailBytes = 254
    /// The longest name, in characters after trimming.
    public static let nameCharacters = 30
    /// The shortest password by default, in characters (`account-worker --min-password-length` may change it).
    public static let minimumPasswordCharacters = 8
    /// The longest password, in characters.
    public static let maximumPasswordCharacters = 128
    /// The longest `locale` (a language tag or a priority list of them), in characters.
    public static let localeCharacters = 100
    /// The largest original avatar, in bytes.
    public static let avatarBytes = 20 * 1024 * 1024
    /// The most pixels (width × height) an original avatar may have, read from its header.
    public static let avatarPixels = 50_000_000
    /// The longest side an original avatar may have, in pixels, read from its header.
    public static let avatarSide = 12_000
    /// The side of the stored square avatar by default (`image-worker --avatar-size` may change it);
    /// smaller originals are stored at their own (cropped) size, never scaled up.
    public static let storedAvatarSide = 512
}
