import Crypto
import Domain
import Foundation
import Registration
@testable import S3Store
@testable import TestSupport
import Testing

/// moto does not check signatures, so the requests libcurl signs are captured by a relay and their
/// `Authorization` headers recomputed here with `SignatureV4`.
@Suite(.tags(.unit)) struct SigningTests {
    /// AWS's SigV4 test suite, case "get-vanilla": checks `SignatureV4` itself.
    @Test func theReferenceSignerMatchesAWSTestVector() {
        let signer = SignatureV4(accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
                                 region: "us-east-1", service: "service")
        let authorization = signer.authorization(
            method: "GET", path: "/", query: "",
            headers: [("Host", "example.amazonaws.com"), ("X-Amz-Date", "20150830T123600Z")],
            payloadHash: sha256Hex([]), date: "20150830T123600Z")
        #expect(authorization == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
                + "SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31")
    }

    @Test func libcurlSignsEveryRequestCorrectly() throws {
        let (relay, relayed) = try relayedBucket()
        var configuration = relayed
        defer { relay.close() }
        configuration.credentials.sessionToken = "session/token+="
        let store = S3ObjectStore(configuration)
        let body = Array("avatar bytes".utf8)
        try store.put(body, key: "ProfileImages/a b.jpg", contentType: "image/jpeg")
        _ = try store.get("ProfileImages/a b.jpg")
        _ = try store.list(prefix: "Profile Images/ü")
        try store.delete("ProfileImages/a b.jpg")

        let requests = relay.requests
        #expect(requests.map(\.method) == ["PUT", "GET", "GET", "DELETE"])
        let put = requests[0]
        #expect(put.target == "/\(configuration.bucket)/ProfileImages/a%20b.jpg")
        #expect(put.body == body)
        #expect(put.header("Content-Type") == "image/jpeg")
        #expect(put.header("x-amz-content-sha256") == sha256Hex(body))
        #expect(put.header("x-amz-checksum-sha256") == Data(sha256(body)).base64EncodedString())
        #expect(put.header("x-amz-security-token") == "session/token+=")
        #expect(requests[2].target == "/\(configuration.bucket)/?list-type=2&prefix=Profile%20Images%2F%C3%BC")
        for request in requests {
            try checkSignature(of: request, credentials: configuration.credentials)
        }
    }

    /// Recomputes the signature of `request` over the headers it says it signed, which must include
    /// the host, the date, the payload hash and every other `x-amz-` header.
    private func checkSignature(of request: HTTPRelay.Request, credentials: S3Credentials) throws {
        let authorization = try #require(request.header("Authorization"))
        let signedNames = try #require(authorization.firstMatch(of: /SignedHeaders=([^,]+)/)).1.split(separator: ";").map(String.init)
        let amzHeaders = request.headers.map { $0.name.lowercased() }.filter { $0.hasPrefix("x-amz-") }
        #expect(Set(signedNames).isSuperset(of: ["host"] + amzHeaders), "\(request.method) signs \(signedNames)")
        let headers = signedNames.map { name in (name: name, value: request.header(name) ?? "") }
        let parts = request.target.split(separator: "?", maxSplits: 1).map(String.init)
        let signer = SignatureV4(accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey,
                                 region: "us-east-1", service: "s3")
        let expected = signer.authorization(
            method: request.method, path: parts[0], query: parts.count > 1 ? parts[1] : "", headers: headers,
            payloadHash: request.header("x-amz-content-sha256") ?? "", date: request.header("x-amz-date") ?? "")
        #expect(authorization == expected, "\(request.method) \(request.target)")
    }
}
