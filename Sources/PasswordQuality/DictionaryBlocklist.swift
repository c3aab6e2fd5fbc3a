internal import CPwquality
import Domain
import Synchronization

/// The password blocklist of libpwquality's dictionary check (cracklib's packed dictionary, Debian's
/// `cracklib-runtime`), configured without composition rules (NIST SP 800-63B): no character classes,
/// credits, repeat or sequence limits, user or GECOS checks. Lengths are the registration rules' concern.
public final class DictionaryBlocklist: PasswordBlocklist {
    /// libpwquality and cracklib keep no promise of thread safety: every call in the process takes its turn.
    private static let library = Mutex(())
    /// Owned; only read, under `library`.
    nonisolated(unsafe) private let settings: OpaquePointer

    /// The blocklist over cracklib's packed dictionary at `dictionary` (a path without its `.pwd`/`.pwi`/`.hwm`
    /// suffix), by default libpwquality's. Fails when libpwquality cannot be set up or the dictionary does not
    /// work (missing, it would refuse every password).
    public init(dictionary: String? = nil) throws(BlocklistError) {
        guard let pointer = pwquality_default_settings() else { throw BlocklistError("libpwquality could not allocate its settings") }
        let neutral: [(Int32, Int32)] = [
            (PWQ_SETTING_MIN_LENGTH, 6), (PWQ_SETTING_DIG_CREDIT, 0), (PWQ_SETTING_UP_CREDIT, 0),
            (PWQ_SETTING_LOW_CREDIT, 0), (PWQ_SETTING_OTH_CREDIT, 0), (PWQ_SETTING_MIN_CLASS, 0),
            (PWQ_SETTING_MAX_REPEAT, 0), (PWQ_SETTING_MAX_CLASS_REPEAT, 0), (PWQ_SETTING_MAX_SEQUENCE, 0),
            (PWQ_SETTING_DIFF_OK, 0), (PWQ_SETTING_GECOS_CHECK, 0), (PWQ_SETTING_USER_CHECK, 0),
            (PWQ_SETTING_DICT_CHECK, 1),
        ]
        for (setting, value) in neutral where pwquality_set_int_value(pointer, setting, value) != 0 {
            pwquality_free_settings(pointer)
            throw BlocklistError("libpwquality refused setting \(setting) = \(value)")
        }
        if let dictionary, pwquality_set_str_value(pointer, PWQ_SETTING_DICT_PATH, dictionary) != 0 {
            pwquality_free_settings(pointer)
            throw BlocklistError("libpwquality refused the dictionary path \(dictionary)")
        }
        settings = pointer
        guard isCommon("password"), !isCommon("purple elephant dances quietly") else {
            throw BlocklistError("the password dictionary \(dictionary ?? "(libpwquality's default)") does not work; install cracklib-runtime")
        }
    }

    deinit { pwquality_free_settings(settings) }

    /// Whether the dictionary check refuses `password` (a dictionary word or a simple variation of one,
    /// too few different characters, too systematic) or it is a palindrome, the one pattern libpwquality
    /// checks unconditionally before the dictionary.
    public func isCommon(_ password: String) -> Bool {
        let result = Self.library.withLock { _ in
            var auxiliary: UnsafeMutableRawPointer?
            let result = pwquality_check(settings, password, nil, nil, &auxiliary)
            if result < 0 {
                // Formatting the error releases its auxiliary data, when that was allocated.
                var message = [CChar](repeating: 0, count: 256)
                _ = pwquality_strerror(&message, message.count, result, auxiliary)
            }
            return result
        }
        return result == PWQ_ERROR_CRACKLIB_CHECK || result == PWQ_ERROR_PALINDROME
    }
}

/// libpwquality could not be set up.
public struct BlocklistError: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) { self.description = description }
}
