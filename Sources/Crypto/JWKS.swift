import Foundation

/// A JSON Web Key Set (RFC 7517, RFC 8037) publishing `key` under `keyID`, for verifiers of
/// ``JSONWebToken``s: `{"keys":[{"alg":"EdDSA","crv":"Ed25519","kid":…,"kty":"OKP","use":"sig","x":…}]}`.
public func jwks(for key: SigningPublicKey, keyID: String) -> String {
    struct KeySet: Encodable { var keys: [Key] }
    struct Key: Encodable { var kty = "OKP", crv = "Ed25519", x: String, kid: String, alg = "EdDSA", use = "sig" }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let set = KeySet(keys: [Key(x: Base64URL.encode(key.bytes), kid: keyID)])
    return String(decoding: try! encoder.encode(set), as: UTF8.self)
}
