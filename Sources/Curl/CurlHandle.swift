internal import CurlShim
import Support

/// The one owner of a libcurl easy handle; cleaned up when released. Transfers on one handle reuse
/// its connections.
///
/// `@unchecked Sendable` is sound: libcurl lets a handle move between threads but not be used by two
/// at once, and a handle is only used by one caller at a time (a `CurlHandlePool` lends it to one).
public final class CurlHandle: @unchecked Sendable {
    private let handle: UnsafeMutableRawPointer

    public init() throws(CurlError) {
        _ = CurlHandle.globalInitialization
        guard let handle = curl_easy_init() else { throw CurlError(cause: .other, summary: "libcurl could not create a handle") }
        self.handle = handle
    }

    deinit {
        curl_easy_cleanup(handle)
    }

    /// libcurl's process-wide set-up, done once before the first handle.
    private static let globalInitialization: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    /// Does libcurl's process-wide set-up now rather than at the first handle. It sets up OpenSSL, which then
    /// registers its clean-up to run at exit: exit handlers run in the reverse order of their registration, so an
    /// exit handler registered after this call runs while libcurl still works (and can stop what uses it).
    public static func setUpLibrary() {
        _ = globalInitialization
    }

    /// Runs one transfer with `options`, then resets the handle's options (its connections stay open).
    /// Throws when no complete response arrived, or an option was refused.
    public func perform(_ options: [CurlOption]) throws(CurlError) -> CurlResponse {
        let transfer = CurlTransfer()
        defer {
            curl_easy_reset(handle)
            withExtendedLifetime(transfer) {}
        }
        var code = CURLE_OK
        func set(_ result: CURLcode) { if code == CURLE_OK { code = result } }
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        set(curl_shim_set_long(handle, CURLOPT_NOSIGNAL, 1))
        set(curl_shim_set_pointer(handle, CURLOPT_ERRORBUFFER, transfer.errorText))
        set(curl_shim_set_write_callback(handle, CURLOPT_WRITEFUNCTION, receiveIntoTransfer))
        set(curl_shim_set_pointer(handle, CURLOPT_WRITEDATA, context))
        for option in options { set(apply(option, transfer, context)) }
        let result = code == CURLE_OK ? curl_easy_perform(handle) : code
        // The buffer is only the transfer's: libcurl must not write to it while resetting.
        _ = curl_shim_set_pointer(handle, CURLOPT_ERRORBUFFER, nil)
        var status = 0
        _ = curl_shim_response_code(handle, &status)
        guard result == CURLE_OK else {
            let detail = String(cString: transfer.errorText)
            throw CurlError(cause: Self.cause(of: result), summary: String(cString: curl_easy_strerror(result)),
                            detail: detail.isEmpty ? nil : detail, responseCode: status)
        }
        var length: curl_off_t = -1
        _ = curl_shim_content_length(handle, &length)
        return CurlResponse(status: status, body: transfer.received, contentLength: length >= 0 ? Int(length) : nil)
    }

    private func apply(_ option: CurlOption, _ transfer: CurlTransfer, _ context: UnsafeMutableRawPointer) -> CURLcode {
        switch option {
        case .url(let url): return curl_shim_set_string(handle, CURLOPT_URL, url)
        case .timeout(let limit): return curl_shim_set_long(handle, CURLOPT_TIMEOUT_MS, limit.milliseconds)
        case .connectTimeout(let limit): return curl_shim_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, limit.milliseconds)
        case .username(let name): return curl_shim_set_string(handle, CURLOPT_USERNAME, name)
        case .password(let password): return curl_shim_set_string(handle, CURLOPT_PASSWORD, password)
        case .awsSignature(let provider): return curl_shim_set_string(handle, CURLOPT_AWS_SIGV4, provider)
        case .headers(let lines): return curl_shim_set_pointer(handle, CURLOPT_HTTPHEADER, transfer.list(lines))
        case .method(let method): return curl_shim_set_string(handle, CURLOPT_CUSTOMREQUEST, method)
        case .headOnly: return curl_shim_set_long(handle, CURLOPT_NOBODY, 1)
        case .body(let bytes):
            let size = curl_shim_set_offset(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count))
            return size == CURLE_OK ? curl_shim_set_pointer(handle, CURLOPT_POSTFIELDS, transfer.keep(bytes)) : size
        case .upload(let bytes):
            transfer.upload = bytes
            for result in [curl_shim_set_long(handle, CURLOPT_UPLOAD, 1),
                           curl_shim_set_offset(handle, CURLOPT_INFILESIZE_LARGE, curl_off_t(bytes.count)),
                           curl_shim_set_read_callback(handle, CURLOPT_READFUNCTION, sendFromTransfer),
                           curl_shim_set_pointer(handle, CURLOPT_READDATA, context)] where result != CURLE_OK {
                return result
            }
            return CURLE_OK
        case .requireTLS(let required):
            return curl_shim_set_long(handle, CURLOPT_USE_SSL, Int((required ? CURLUSESSL_ALL : CURLUSESSL_NONE).rawValue))
        case .certificateAuthorities(let path): return curl_shim_set_string(handle, CURLOPT_CAINFO, path)
        case .mailFrom(let sender): return curl_shim_set_string(handle, CURLOPT_MAIL_FROM, sender)
        case .mailRecipients(let recipients): return curl_shim_set_pointer(handle, CURLOPT_MAIL_RCPT, transfer.list(recipients))
        }
    }

    private static func cause(of code: CURLcode) -> CurlError.Cause {
        switch code {
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL, CURLE_UNKNOWN_OPTION, CURLE_NOT_BUILT_IN,
             CURLE_BAD_FUNCTION_ARGUMENT: .misuse
        case CURLE_USE_SSL_FAILED: .tlsUnavailable
        case CURLE_LOGIN_DENIED: .loginDenied
        default: .other
        }
    }
}
