import Accounts
import Crypto
import Curl
import Foundation
import Domain

/// Objects in one bucket of an S3-compatible service (AWS S3, MinIO, …), over libcurl with its
/// built-in AWS Signature Version 4.
///
/// Every PUT carries the body's SHA-256 (`x-amz-content-sha256`, signed, and `x-amz-checksum-sha256`,
/// which the service verifies), so a corrupted upload is refused rather than stored. Transient
/// failures (no response, timeouts, HTTP 5xx, 408 and 429) are retried with back-off inside each call,
/// then thrown as transient; other HTTP 4xx are permanent.
///
/// `url(for:)` gives `publicBaseURL/<key>` when one is configured (a CDN or public bucket website),
/// else the object's own URL (path-style or virtual-hosted, as configured). Profile images are kept
/// for as long as the profile, so the URL must not expire: no presigned URLs. The bucket, or what
/// serves `publicBaseURL`, must therefore allow anonymous reads of `ProfileImages/`.
public struct S3ObjectStore: ObjectStore {
    public let configuration: S3Configuration
    private let retry: StoreRetry
    private let handles = CurlHandlePool()

    public init(_ configuration: S3Configuration, retry: StoreRetry = StoreRetry()) {
        self.configuration = configuration
        self.retry = retry
    }

    public func put(_ bytes: [UInt8], key: String, contentType: String) throws(StoreError) {
        let digest = sha256(bytes)
        let headers = [("Content-Type", contentType), ("x-amz-checksum-sha256", Data(digest).base64EncodedString())]
        _ = try send(SignedRequest(method: .put, url: try objectURL(key), headers: headers, body: bytes), payloadHash: hex(digest))
    }

    public func get(_ key: String) throws(StoreError) -> [UInt8]? {
        try send(SignedRequest(method: .get, url: try objectURL(key)), missingIs404: true)?.body
    }

    /// A ranged GET (`Range: bytes=0-…`), its body cut to `length` should a server send more.
    public func prefix(of key: String, length: Int) throws(StoreError) -> [UInt8]? {
        guard length > 0 else { return try size(of: key).map { _ in [] } }
        let request = SignedRequest(method: .get, url: try objectURL(key), headers: [("Range", "bytes=0-\(length - 1)")])
        return try send(request, missingIs404: true).map { Array($0.body.prefix(length)) }
    }

    /// The `Content-Length` of a HEAD.
    public func size(of key: String) throws(StoreError) -> Int? {
        guard let response = try send(SignedRequest(method: .head, url: try objectURL(key)), missingIs404: true) else { return nil }
        guard let length = response.contentLength else { throw StoreError(.permanent, "HEAD \(key): no Content-Length") }
        return length
    }

    public func delete(_ key: String) throws(StoreError) {
        _ = try send(SignedRequest(method: .delete, url: try objectURL(key)), missingIs404: true)
    }

    /// The objects whose key starts with `prefix`, sorted by key (ListObjectsV2, every page).
    public func list(prefix: String) throws(StoreError) -> [StoredObject] {
        var objects: [StoredObject] = []
        var token: String?
        repeat {
            // Parameters in canonical (sorted) order, encoded as SigV4 wants, so the URL is its own canonical form.
            let parameters = [("continuation-token", token), ("list-type", "2"), ("prefix", prefix)]
                .compactMap { name, value in value.map { "\(name)=\(S3Encoding.query($0))" } }
            let response = try send(SignedRequest(method: .get, url: "\(configuration.bucketURL)/?" + parameters.joined(separator: "&")))
            let page = try ListBucketResult(xml: response?.body ?? [])
            objects += page.objects
            token = page.nextContinuationToken
        } while token != nil
        return objects.sorted { $0.key < $1.key }
    }

    public func url(for key: String) -> String {
        guard let base = configuration.publicBaseURL else { return configuration.objectURL(key) }
        return (base.hasSuffix("/") ? base : base + "/") + S3Encoding.path(key)
    }

    private func objectURL(_ key: String) throws(StoreError) -> String {
        try ObjectKey.validate(key)
        return configuration.objectURL(key)
    }

    /// Sends `request` with retries; the response, or nil for a 404 when `missingIs404`.
    private func send(_ request: SignedRequest, payloadHash: String = sha256Hex([]),
                      missingIs404: Bool = false) throws(StoreError) -> CurlResponse? {
        var request = request
        request.headers.append(("x-amz-content-sha256", payloadHash))
        if let token = configuration.credentials.sessionToken { request.headers.append(("x-amz-security-token", token)) }
        let options = request.options(region: configuration.region, credentials: configuration.credentials,
                                      timeout: configuration.timeout)
        return try retry.run(isTransient: { $0.kind == .transient }) { (_) throws(StoreError) -> CurlResponse? in
            let response: CurlResponse
            do throws(CurlError) {
                response = try handles.withHandle { (handle) throws(CurlError) in try handle.perform(options) }
            } catch {
                throw Self.error(error, request)
            }
            switch response.status {
            case 200..<300: return response
            case 404 where missingIs404: return nil
            default: throw Self.error(response, request)
            }
        }
    }

    /// The error for a transfer with no response: permanent when the request itself is wrong (a bad URL,
    /// an unsupported protocol or option), transient otherwise (connecting, TLS, timeouts, lost connections).
    private static func error(_ error: CurlError, _ request: SignedRequest) -> StoreError {
        StoreError(error.cause == .misuse ? .permanent : .transient, "\(request.method.rawValue) \(request.url): \(error.summary)")
    }

    /// The error for an unsuccessful response: transient for 5xx, 408 and 429, permanent otherwise.
    private static func error(_ response: CurlResponse, _ request: SignedRequest) -> StoreError {
        let transient = response.status >= 500 || response.status == 408 || response.status == 429
        let detail = String(decoding: response.body.prefix(300), as: UTF8.self)
        return StoreError(transient ? .transient : .permanent,
                          "\(request.method.rawValue) \(request.url): HTTP \(response.status) \(detail)")
    }
}
