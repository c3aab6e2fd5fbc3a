import Foundation
import Domain

/// Where and as whom an `S3ObjectStore` stores objects.
public struct S3Configuration: Sendable {
    public var bucket: String
    /// The signing region, e.g. `us-east-1`.
    public var region: String
    /// The service's `scheme://host[:port]`, e.g. `https://s3.eu-west-1.amazonaws.com` or `http://127.0.0.1:9000`.
    public var endpoint: String
    /// Whether the bucket goes in the path (`endpoint/bucket/key`, MinIO and most local servers) or in
    /// the host name (`bucket.host/key`, AWS's default).
    public var pathStyle: Bool
    /// Where clients fetch objects (a CDN, or the bucket's public website), e.g. `https://cdn.example.com/avatars`;
    /// nil for the object URLs themselves.
    public var publicBaseURL: String?
    public var credentials: S3Credentials
    /// The longest one request may take, connecting included.
    public var timeout: Duration

    public init(bucket: String, region: String, endpoint: String? = nil, pathStyle: Bool = false,
                publicBaseURL: String? = nil, credentials: S3Credentials, timeout: Duration = .seconds(30)) {
        self.bucket = bucket
        self.region = region
        self.endpoint = endpoint.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 } ?? "https://s3.\(region).amazonaws.com"
        self.pathStyle = pathStyle
        self.publicBaseURL = publicBaseURL
        self.credentials = credentials
        self.timeout = timeout
    }

    /// The configuration an `s3://bucket?region=…&endpoint=…&path-style=true&public-url=…&timeout=30`
    /// URL gives, every query item optional. The region defaults to `AWS_REGION`, then
    /// `AWS_DEFAULT_REGION`, then `us-east-1`; the endpoint to AWS's for the region; credentials come
    /// from `environment` (`S3Credentials(environment:)`).
    public init(url: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(StoreError) {
        guard let components = URLComponents(string: url), components.scheme == "s3",
              let bucket = components.host, !bucket.isEmpty else {
            throw StoreError(.permanent, "not an s3://bucket URL: \(url)")
        }
        let query = try components.parameters(known: ["region", "endpoint", "path-style", "public-url", "timeout"])
        let pathStyle = try Self.flag(query["path-style"], named: "path-style")
        guard let seconds = Int(query["timeout"] ?? "30"), seconds > 0 else {
            throw StoreError(.permanent, "s3:// URL parameter timeout expects seconds")
        }
        self.init(bucket: bucket, region: query["region"] ?? environment["AWS_REGION"] ?? environment["AWS_DEFAULT_REGION"] ?? "us-east-1",
                  endpoint: query["endpoint"], pathStyle: pathStyle, publicBaseURL: query["public-url"],
                  credentials: try S3Credentials(environment: environment), timeout: .seconds(seconds))
    }

    /// The URL of the bucket, with no trailing slash.
    var bucketURL: String {
        if pathStyle { return "\(endpoint)/\(bucket)" }
        let schemeEnd = endpoint.range(of: "://")?.upperBound ?? endpoint.startIndex
        return endpoint[..<schemeEnd] + bucket + "." + endpoint[schemeEnd...]
    }

    /// The URL of the object `key`.
    func objectURL(_ key: String) -> String {
        "\(bucketURL)/\(S3Encoding.path(key))"
    }

    private static func flag(_ value: String?, named name: String) throws(StoreError) -> Bool {
        switch value {
        case nil, "false", "0": return false
        case "", "true", "1": return true
        case let other?: throw StoreError(.permanent, "s3:// URL parameter \(name) expects true or false, got \(other)")
        }
    }
}

/// AWS credentials: an access key and, for temporary credentials, a session token.
public struct S3Credentials: Sendable, CustomStringConvertible {
    public var accessKeyId: String
    public var secretAccessKey: String
    public var sessionToken: String?

    public init(accessKeyId: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyId = accessKeyId
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    /// The credentials in `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`.
    public init(environment: [String: String]) throws(StoreError) {
        guard let id = environment["AWS_ACCESS_KEY_ID"], !id.isEmpty,
              let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty else {
            throw StoreError(.permanent, "S3 credentials missing: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
        }
        self.init(accessKeyId: id, secretAccessKey: secret, sessionToken: environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 })
    }

    /// The access key id only: the secret and the token never appear in logs.
    public var description: String { "S3Credentials(\(accessKeyId))" }
}
