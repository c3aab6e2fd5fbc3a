import CurlShim
import Domain

/// One SMTP transaction (`MAIL FROM`, `RCPT TO`, `DATA`) on a libcurl easy handle of its own.
/// libcurl does the dialogue: EHLO, STARTTLS, AUTH and dot-stuffing of the data.
struct SMTPTransfer {
    let configuration: SMTPConfiguration

    /// Sends `data` (an RFC 5322 message) from `sender` to `recipient`, both bare addresses.
    /// Throws a transient error for a 4xx reply or no reply (connecting, TLS, timeouts, lost connections),
    /// a permanent one for a 5xx reply or a configuration libcurl cannot use.
    func send(_ data: [UInt8], from sender: String, to recipient: String) throws(StoreError) {
        _ = Self.globalInitialization
        guard let handle = curl_easy_init() else { throw StoreError(.transient, "libcurl could not create a handle") }
        defer { curl_easy_cleanup(handle) }
        let recipients = curl_slist_append(nil, "<\(recipient)>")
        defer { curl_slist_free_all(recipients) }
        let upload = Upload(data)
        var errorText = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)

        var code = CURLE_OK
        func set(_ result: CURLcode) { if code == CURLE_OK { code = result } }
        set(curl_shim_set_string(handle, CURLOPT_URL, configuration.serverURL))
        set(curl_shim_set_long(handle, CURLOPT_NOSIGNAL, 1))
        set(curl_shim_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(configuration.connectTimeout)))
        set(curl_shim_set_long(handle, CURLOPT_TIMEOUT_MS, Self.milliseconds(configuration.timeout)))
        let tls = configuration.security == .none ? CURLUSESSL_NONE : CURLUSESSL_ALL
        set(curl_shim_set_long(handle, CURLOPT_USE_SSL, Int(tls.rawValue)))
        if let certificateAuthorities = configuration.certificateAuthorities {
            set(curl_shim_set_string(handle, CURLOPT_CAINFO, certificateAuthorities))
        }
        if let username = configuration.username {
            set(curl_shim_set_string(handle, CURLOPT_USERNAME, username))
            set(curl_shim_set_string(handle, CURLOPT_PASSWORD, configuration.password ?? ""))
        }
        set(curl_shim_set_string(handle, CURLOPT_MAIL_FROM, "<\(sender)>"))
        set(curl_shim_set_pointer(handle, CURLOPT_MAIL_RCPT, recipients))
        set(curl_shim_set_long(handle, CURLOPT_UPLOAD, 1))
        set(curl_shim_set_offset(handle, CURLOPT_INFILESIZE_LARGE, curl_off_t(data.count)))
        set(curl_shim_set_read_callback(handle, CURLOPT_READFUNCTION, readUpload))
        set(curl_shim_set_pointer(handle, CURLOPT_READDATA, Unmanaged.passUnretained(upload).toOpaque()))
        let result = withExtendedLifetime(upload) {
            errorText.withUnsafeMutableBufferPointer { buffer in
                set(curl_shim_set_pointer(handle, CURLOPT_ERRORBUFFER, buffer.baseAddress))
                let performed = code == CURLE_OK ? curl_easy_perform(handle) : code
                // The buffer's address is only valid here: libcurl must not write to it while cleaning up.
                _ = curl_shim_set_pointer(handle, CURLOPT_ERRORBUFFER, nil)
                return performed
            }
        }
        guard result == CURLE_OK else {
            var reply = 0
            _ = curl_shim_response_code(handle, &reply)
            let text = errorText.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
            let detail = text.isEmpty ? String(cString: curl_easy_strerror(result)) : String(decoding: text, as: UTF8.self)
            throw StoreError(Self.kind(of: result, reply: reply), "\(configuration.serverURL): \(detail)")
        }
    }

    /// libcurl's process-wide set-up, done once before the first handle.
    private static let globalInitialization: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    /// Permanent for a 5xx reply or a configuration that cannot work (bad URL, no STARTTLS offered,
    /// credentials refused); transient for a 4xx reply and everything else.
    private static func kind(of code: CURLcode, reply: Int) -> StoreError.Kind {
        switch reply {
        case 500..<600: return .permanent
        case 400..<500: return .transient
        default:
            let permanent = [CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL, CURLE_UNKNOWN_OPTION, CURLE_NOT_BUILT_IN,
                             CURLE_BAD_FUNCTION_ARGUMENT, CURLE_USE_SSL_FAILED, CURLE_LOGIN_DENIED]
            return permanent.contains(code) ? .permanent : .transient
        }
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }
}

/// The bytes of a message as libcurl reads them, and how far it has read.
private final class Upload {
    let bytes: [UInt8]
    var offset = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }
}

/// libcurl's read callback: copies the next bytes of the `Upload` passed as context; 0 at the end.
private func readUpload(_ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let buffer, let context else { return 0 }
    let upload = Unmanaged<Upload>.fromOpaque(context).takeUnretainedValue()
    let length = min(size * count, upload.bytes.count - upload.offset)
    guard length > 0 else { return 0 }
    upload.bytes.withUnsafeBytes { bytes in
        UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress! + upload.offset, byteCount: length)
    }
    upload.offset += length
    return length
}
