import Crypto
import Foundation
@testable import TestSupport

/// AWS Signature Version 4 computed here from AWS's published algorithm, independently of libcurl,
/// to check the signatures libcurl sends.
struct SignatureV4 {
    var accessKeyId: String
    var secretAccessKey: String
    var region: String
    var service: String

    /// The `Authorization` header value for a request, given the headers to sign (names in any case).
    func authorization(method: String, path: String, query: String, headers: [(name: String, value: String)],
                       payloadHash: String, date: String) -> String {
        let signed = headers.map { (name: $0.name.lowercased(), value: $0.value.trimmingCharacters(in: .whitespaces)) }
            .sorted { $0.name < $1.name }
        let signedNames = signed.map(\.name).joined(separator: ";")
        let canonicalQuery = query.split(separator: "&").map(String.init).sorted().joined(separator: "&")
        let canonicalRequest = [method, path, canonicalQuery, signed.map { "\($0.name):\($0.value)\n" }.joined(),
                                signedNames, payloadHash].joined(separator: "\n")
        let day = String(date.prefix(8))
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = ["AWS4-HMAC-SHA256", date, scope, sha256Hex(Array(canonicalRequest.utf8))].joined(separator: "\n")
        var key = Array("AWS4\(secretAccessKey)".utf8)
        for part in [day, region, service, "aws4_request"] { key = hmac(key, part) }
        let signature = hex(hmac(key, stringToSign))
        return "AWS4-HMAC-SHA256 Credential=\(accessKeyId)/\(scope), SignedHeaders=\(signedNames), Signature=\(signature)"
    }

    private func hmac(_ key: [UInt8], _ message: String) -> [UInt8] {
        MessageAuthenticator(key: key).tag(Array(message.utf8))
    }
}
