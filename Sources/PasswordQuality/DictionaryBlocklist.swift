internal import CPwquality
import Domain
import Synchronization

/// The password blocklist of libpwquality's dictionary check (cracklib's packed dictionary, Debian's
/// `cracklib-runtime`), configured without composition rules (NIST SP 800-63B): no character classes,
/// credits, repeat or sequence limits, user or GECOS checks. Lengths are the registration rules' concern.
///
/// The verdicts are libpwquality's with `dictcheck=1`: its own checks run first (`pwquality_check` with the
/// dictionary check off), then cracklib's `FascistLook` — what libpwquality's `FascistCheck` runs — on a
/// dictionary kept open ( `FascistCheck` opens and reads the dictionary's header and index on every call).
public final class DictionaryBlocklist: PasswordBlocklist {
    /// Owned; only read, under `OpenDictionary.shared`.
    nonisolated(unsafe) private let settings: OpaquePointer
    /// The packed dictionary's path, without its `.pwd`/`.pwi`/`.hwm` suffix.
    private let dictionary: String

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
            // The dictionary check is `isCommon`'s own, on the dictionary kept open.
            (PWQ_SETTING_DICT_CHECK, 0),
        ]
        for (setting, value) in neutral where pwquality_set_int_value(pointer, setting, value) != 0 {
            pwquality_free_settings(pointer)
            throw BlocklistError("libpwquality refused setting \(setting) = \(value)")
        }
        settings = pointer
        self.dictionary = dictionary ?? String(cString: GetDefaultCracklibDict())
        guard isCommon("password"), !isCommon("purple elephant dances quietly") else {
            throw BlocklistError("the password dictionary \(self.dictionary) does not work; install cracklib-runtime")
        }
    }

    deinit { pwquality_free_settings(settings) }

    /// Whether the dictionary check refuses `password` (a dictionary word or a simple variation of one,
    /// too few different characters, too systematic) or it is a palindrome, the one pattern libpwquality
    /// checks unconditionally before the dictionary. A dictionary that cannot be opened refuses every
    /// password, as libpwquality's check does.
    public func isCommon(_ password: String) -> Bool {
        OpenDictionary.shared.withLock { open in
            var auxiliary: UnsafeMutableRawPointer?
            let result = pwquality_check(settings, password, nil, nil, &auxiliary)
            if result < 0 {
                // Formatting the error releases its auxiliary data, when that was allocated.
                var message = [CChar](repeating: 0, count: 256)
                _ = pwquality_strerror(&message, message.count, result, auxiliary)
                return result == PWQ_ERROR_PALINDROME
            }
            guard let handle = OpenDictionary.handle(for: dictionary, in: &open) else { return true }
            var text = Array(password.utf8CString)
            // FascistLook would also compare the password with this process's own account, and refuses every password
            // of a user with no passwd entry (a Kubernetes runAsUser, a container's numeric USER): that account is
            // not the user registering, so none is given.
            return FascistLookUser(handle, &text, "", "") != nil
        }
    }
}

/// cracklib's one open dictionary in this process: `PWOpen` fills a static descriptor and refuses a second
/// dictionary while one is open, and `GetPW` caches the last block read in it. All use goes through the lock.
private struct OpenDictionary {
    static let shared = Mutex<OpenDictionary?>(nil)

    let path: String
    let handle: UnsafeMutablePointer<PWDICT>

    /// The handle of the dictionary at `path`, opened now (closing another one first) if need be.
    static func handle(for path: String, in open: inout OpenDictionary?) -> UnsafeMutablePointer<PWDICT>? {
        if let current = open {
            if current.path == path { return current.handle }
            PWClose(current.handle)
            open = nil
        }
        var mode = Array("r".utf8CString)
        guard let handle = PWOpen(path, &mode) else { return nil }
        open = OpenDictionary(path: path, handle: handle)
        return handle
    }
}

/// libpwquality could not be set up.
public struct BlocklistError: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) { self.description = description }
}
