import Backends
import Curl
import Domain
import Foundation
import Registration
@testable import S3Store
@testable import TestSupport

/// An implementation of the object store, to run one behaviour suite against each.
enum ObjectStoreBackend: String, CaseIterable, Sendable {
    case files
    case s3

    /// Runs `body` with a new empty store of this implementation.
    func withStore<T>(_ body: (any ObjectStore) throws -> T) throws -> T {
        switch self {
        case .files: try withTemporaryDirectory { try body(FileObjectStore(root: "\($0)/objects")) }
        case .s3: try body(S3ObjectStore(newBucket(on: MotoServer.shared().endpoint)))
        }
    }
}

extension MotoServer {
    /// One server shared by the tests of this process that do not stop it; each should use a bucket of its own.
    static func shared() throws -> MotoServer { try sharedServer.get() }

    private static let sharedServer = Result { try MotoServer() }
}

/// Credentials for a test server, which does not check them.
let testCredentials = S3Credentials(accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")

/// Test settings: short timeouts, quick retries.
func testConfiguration(bucket: String, endpoint: String, pathStyle: Bool = true) -> S3Configuration {
    S3Configuration(bucket: bucket, region: "us-east-1", endpoint: endpoint, pathStyle: pathStyle,
                    credentials: testCredentials, timeout: .seconds(5))
}

let quickRetry = StoreRetry(attempts: 3, initialDelay: .milliseconds(10), maxDelay: .milliseconds(20))

/// The configuration of a new empty bucket at `endpoint`, created with a signed PUT.
func newBucket(on endpoint: String, named name: String = "test-\(UUID().uuidString.lowercased())") throws -> S3Configuration {
    let configuration = testConfiguration(bucket: name, endpoint: endpoint)
    try createBucket(configuration)
    return configuration
}

/// A new empty bucket on the shared moto server, reached through a relay that records and can fail requests.
func relayedBucket() throws -> (HTTPRelay, S3Configuration) {
    let moto = try MotoServer.shared()
    var configuration = try newBucket(on: moto.endpoint)
    let relay = try HTTPRelay(to: moto.port)
    configuration.endpoint = relay.endpoint
    return (relay, configuration)
}

func createBucket(_ configuration: S3Configuration) throws {
    let response = try CurlHandle().perform(SignedRequest(method: .put, url: configuration.bucketURL).options(
        region: configuration.region, credentials: configuration.credentials, timeout: configuration.timeout))
    guard response.status == 200 else { throw TestServerError("cannot create bucket: HTTP \(response.status)") }
}

/// Lets anyone read the object `key`, as a public bucket or a CDN in front of it would.
func makePublic(_ key: String, in configuration: S3Configuration) throws {
    let request = SignedRequest(method: .put, url: configuration.objectURL(key) + "?acl=", headers: [("x-amz-acl", "public-read")])
    let response = try CurlHandle().perform(request.options(region: configuration.region, credentials: configuration.credentials,
                                                            timeout: configuration.timeout))
    guard response.status == 200 else { throw TestServerError("cannot make \(key) public: HTTP \(response.status)") }
}

/// The bytes at `url` fetched without credentials, as a browser would (`curl`).
func fetchAnonymously(_ url: String) throws -> [UInt8] {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("fetch-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    try runCommand("/usr/bin/curl", ["-sSf", "-o", path, url])
    return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
}
