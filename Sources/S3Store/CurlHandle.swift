import CurlShim
import Domain

/// The one owner of a libcurl easy handle; cleaned up when released. Transfers on one handle reuse
/// its connections.
///
/// `@unchecked Sendable` is sound: libcurl lets a handle move between threads but not be used by two
/// at once, and a handle is only used by the one caller its `CurlHandlePool` lends it to.
final class CurlHandle: @unchecked Sendable {
    private let handle: UnsafeMutableRawPointer

    init() throws(StoreError) {
        _ = CurlHandle.globalInitialization
        guard let handle = curl_easy_init() else { throw StoreError(.transient, "libcurl could not create a handle") }
        self.handle = handle
    }

    deinit {
        curl_easy_cleanup(handle)
    }

    /// libcurl's process-wide set-up, done once before the first handle.
    private static let globalInitialization: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    /// Sends `request`, signed by libcurl (`CURLOPT_AWS_SIGV4`) for `region` with `credentials`.
    /// Throws a transient error when no response arrives (connection refused or lost, timeout).
    func perform(_ request: SignedRequest, region: String, credentials: S3Credentials,
                 timeout: Duration) throws(StoreError) -> Response {
        defer { curl_easy_reset(handle) }
        // Only headers with values: libcurl signs every header given here, removals ("Name:") too.
        var headers: UnsafeMutablePointer<curl_slist>?
        for (name, value) in request.headers { headers = curl_slist_append(headers, "\(name): \(value)") }
        defer { curl_slist_free_all(headers) }
        let body = ResponseBody()
        let context = Unmanaged.passUnretained(body).toOpaque()
        let milliseconds = Int(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)

        var code = CURLE_OK
        func set(_ result: CURLcode) { if code == CURLE_OK { code = result } }
        set(curl_shim_set_string(handle, CURLOPT_URL, request.url))
        set(curl_shim_set_long(handle, CURLOPT_NOSIGNAL, 1))
        set(curl_shim_set_long(handle, CURLOPT_TIMEOUT_MS, milliseconds))
        set(curl_shim_set_string(handle, CURLOPT_AWS_SIGV4, "aws:amz:\(region):s3"))
        set(curl_shim_set_string(handle, CURLOPT_USERNAME, credentials.accessKeyId))
        set(curl_shim_set_string(handle, CURLOPT_PASSWORD, credentials.secretAccessKey))
        set(curl_shim_set_pointer(handle, CURLOPT_HTTPHEADER, headers))
        set(curl_shim_set_write_callback(handle, CURLOPT_WRITEFUNCTION, appendToBody))
        set(curl_shim_set_pointer(handle, CURLOPT_WRITEDATA, context))
        switch request.method {
        case .get: break
        case .head: set(curl_shim_set_long(handle, CURLOPT_NOBODY, 1))
        case .put, .delete: set(curl_shim_set_string(handle, CURLOPT_CUSTOMREQUEST, request.method.rawValue))
        }
        let result = withExtendedLifetime(body) {
            request.body.withUnsafeBytes { bytes in
                if request.method == .put {
                    // A body (even an empty one) is sent from memory, never read from standard input.
                    set(curl_shim_set_offset(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count)))
                    set(curl_shim_set_pointer(handle, CURLOPT_POSTFIELDS, bytes.baseAddress ?? UnsafeRawPointer(Self.empty.utf8Start)))
                }
                return code == CURLE_OK ? curl_easy_perform(handle) : code
            }
        }
        guard result == CURLE_OK else { throw Self.error(result, request) }
        var status = 0
        _ = curl_shim_response_code(handle, &status)
        return Response(status: status, body: body.bytes)
    }

    private static let empty: StaticString = ""

    /// The error for libcurl result `code`: permanent when the request itself is wrong (a bad URL, an
    /// unsupported protocol or option), transient otherwise (connecting, TLS, timeouts, lost connections).
    private static func error(_ code: CURLcode, _ request: SignedRequest) -> StoreError {
        let permanent = [CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL, CURLE_UNKNOWN_OPTION,
                         CURLE_NOT_BUILT_IN, CURLE_BAD_FUNCTION_ARGUMENT]
        let message = "\(request.method.rawValue) \(request.url): \(String(cString: curl_easy_strerror(code)))"
        return StoreError(permanent.contains(code) ? .permanent : .transient, message)
    }
}

/// The bytes of a response body as libcurl delivers them.
private final class ResponseBody {
    var bytes: [UInt8] = []
}

/// libcurl's write callback: appends to the `ResponseBody` passed as context.
private func appendToBody(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let data, let context else { return 0 }
    let body = Unmanaged<ResponseBody>.fromOpaque(context).takeUnretainedValue()
    body.bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: size * count))
    return size * count
}
