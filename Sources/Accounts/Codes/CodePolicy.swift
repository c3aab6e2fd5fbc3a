/// The numbers of one-time codes (NIST SP 800-63B: ≤ 10 minutes, single use, rate limited).
public struct CodePolicy: Sendable, Equatable {
    /// Seconds a code stays valid.
    public var lifetime: Double
    /// Wrong submissions a code survives; the next submission fails even with the right code.
    public var maximumAttempts: Int
    /// Seconds between two codes for one email and purpose.
    public var cooldown: Double
    /// Codes per email and purpose in any hour.
    public var hourlyLimit: Int

    public init(lifetime: Double = 600, maximumAttempts: Int = 5, cooldown: Double = 60, hourlyLimit: Int = 5) {
        self.lifetime = lifetime
        self.maximumAttempts = maximumAttempts
        self.cooldown = cooldown
        self.hourlyLimit = hourlyLimit
    }
}
