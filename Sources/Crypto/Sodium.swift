internal import CSodium

/// The libsodium library state.
public enum Sodium {
    /// Initialises libsodium once per process; safe to call from any thread, any number of times.
    ///
    /// Every entry point of this module calls it, so callers only need it to pay the cost up front.
    public static func initialize() {
        _ = initialized
    }

    private static let initialized: Void = {
        precondition(sodium_init() >= 0, "libsodium could not be initialised")
    }()
}
