import Curl

/// One HTTP request to the S3 service, to be signed with AWS Signature Version 4.
struct SignedRequest {
    enum Method: String {
        case get = "GET", put = "PUT", head = "HEAD", delete = "DELETE"
    }

    var method: Method
    var url: String
    /// Extra headers; `x-amz-*` ones are signed.
    var headers: [(name: String, value: String)] = []
    var body: [UInt8] = []

    /// The transfer, signed by libcurl (`CURLOPT_AWS_SIGV4`) for `region` with `credentials`.
    func options(region: String, credentials: S3Credentials, timeout: Duration) -> [CurlOption] {
        // Only headers with values: libcurl signs every header given here, removals ("Name:") too.
        var options: [CurlOption] = [
            .url(url), .timeout(timeout), .awsSignature("aws:amz:\(region):s3"),
            .username(credentials.accessKeyId), .password(credentials.secretAccessKey),
            .headers(headers.map { "\($0.name): \($0.value)" }),
        ]
        switch method {
        case .get: break
        case .head: options.append(.headOnly)
        case .put: options += [.method(method.rawValue), .body(body)]
        case .delete: options.append(.method(method.rawValue))
        }
        return options
    }
}
