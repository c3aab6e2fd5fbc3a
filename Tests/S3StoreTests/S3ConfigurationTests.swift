import Domain
@testable import S3Store
@testable import TestSupport
import Testing

@Suite(.tags(.production)) struct S3ConfigurationTests {
    let environment = ["AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_REGION": "eu-west-1"]

    @Test func awsDefaultsAreVirtualHosted() throws {
        let configuration = try S3Configuration(url: "s3://avatars", environment: environment)
        #expect(configuration.region == "eu-west-1")
        #expect(configuration.objectURL("ProfileImages/a b.jpg") == "https://avatars.s3.eu-west-1.amazonaws.com/ProfileImages/a%20b.jpg")
        #expect(configuration.credentials.sessionToken == nil)
        #expect(!"\(configuration.credentials)".contains("secret"))
    }

    @Test func everyParameterIsRead() throws {
        let url = "s3://avatars?endpoint=http://127.0.0.1:9000/&region=us-east-1&path-style=true&public-url=https://cdn.example.com/a&timeout=7"
        let configuration = try S3Configuration(url: url, environment: environment.merging(["AWS_SESSION_TOKEN": "t"]) { $1 })
        #expect(configuration.objectURL("k") == "http://127.0.0.1:9000/avatars/k")
        #expect(configuration.publicBaseURL == "https://cdn.example.com/a")
        #expect(configuration.timeout == .seconds(7))
        #expect(configuration.credentials.sessionToken == "t")
        #expect(S3ObjectStore(configuration).url(for: "ProfileImages/x+y.jpg") == "https://cdn.example.com/a/ProfileImages/x%2By.jpg")
    }

    @Test(arguments: ["s3://", "http://bucket", "s3://b?unknown=1", "s3://b?path-style=maybe", "s3://b?timeout=0"])
    func badURLsAreRefused(url: String) {
        #expect(throws: StoreError.self) { try S3Configuration(url: url, environment: environment) }
    }

    @Test func missingCredentialsAreRefused() {
        #expect(throws: StoreError.self) { try S3Configuration(url: "s3://b", environment: [:]) }
    }

    /// curl resolves `*.localhost` to the loopback address, so moto serves virtual-hosted requests too.
    @Test func virtualHostedRequestsWork() throws {
        let moto = try MotoServer.shared()
        let configuration = testConfiguration(bucket: "virtual-\(UInt32.random(in: 0 ... .max))",
                                              endpoint: "http://localhost:\(moto.port)", pathStyle: false)
        #expect(configuration.bucketURL.hasPrefix("http://\(configuration.bucket).localhost:"))
        try createBucket(configuration)
        let store = S3ObjectStore(configuration)
        try store.put([5], key: "ProfileImages/v.jpg", contentType: "image/jpeg")
        #expect(try store.list(prefix: "ProfileImages/").map(\.key) == ["ProfileImages/v.jpg"])
    }
}
