import Foundation

/// A reason a JSON Web Token was refused.
public enum JSONWebTokenError: Error, Sendable, Equatable {
    /// Not three base64url segments of JSON, or too long.
    case malformed
    /// The header names another algorithm than EdDSA, or critical extensions.
    case unsupportedAlgorithm(String)
    /// The signature does not match the key.
    case invalidSignature
    /// The token has no `exp` claim; tokens that never expire are refused.
    case missingExpiry
    /// `now` is at or after `exp`.
    case expired
    /// `now` is before `nbf`.
    case notYetValid
    /// The claims are not of the expected shape.
    case invalidClaims
    /// The header names no `kid`, or one the key set does not hold.
    case unknownKey
    /// `iss` is missing or names another issuer.
    case wrongIssuer
    /// `aud` is missing or does not name this audience.
    case wrongAudience
}

/// EdDSA (Ed25519) JSON Web Tokens in JWS compact serialisation (RFC 7519, RFC 8037).
///
/// Claims are any `Codable` type; `Date` properties are encoded as seconds since 1970 (NumericDate).
public enum JSONWebToken {
    /// The JOSE header.
    public struct Header: Codable, Sendable, Equatable {
        /// Always `EdDSA` for tokens this module signs or accepts.
        public var alg: String
        public var typ: String?
        /// The identifier of the signing key, matching its JWKS entry.
        public var kid: String?
        /// Critical extensions; none are supported, so tokens carrying any are refused.
        public var crit: [String]?
    }

    private static let algorithm = "EdDSA"
    /// Tokens longer than this are refused before any parsing.
    private static let maxLength = 8192

    /// Signs `claims` with `key`, naming it `keyID` in the header.
    public static func sign<Claims: Encodable>(_ claims: Claims, keyID: String, with key: SigningKeyPair) throws -> String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let header = Header(alg: algorithm, typ: "JWT", kid: keyID)
        let signingInput = Base64URL.encode(Array(try encoder.encode(header)))
            + "." + Base64URL.encode(Array(try encoder.encode(claims)))
        return signingInput + "." + Base64URL.encode(key.sign(Array(signingInput.utf8)))
    }

    /// Reads the header without checking anything, e.g. to choose the verification key by `kid`.
    public static func header(of token: String) throws(JSONWebTokenError) -> Header {
        try decode(Header.self, from: segments(of: token).header)
    }

    /// Checks the algorithm, the signature by the key `keys` holds under the header's `kid`, the validity period
    /// (`exp` required, `nbf` if present) at `now`, that `iss` is `issuer` and that `aud` is or contains `audience`;
    /// then decodes the claims.
    public static func verify<Claims: Decodable>(
        _ token: String, as type: Claims.Type = Claims.self, using keys: JSONWebKeySet, issuer: String, audience: String,
        now: Date = Date()
    ) throws(JSONWebTokenError) -> Claims {
        let parts = try segments(of: token)
        let header = try decode(Header.self, from: parts.header)
        guard header.alg == algorithm, header.crit == nil else { throw .unsupportedAlgorithm(header.alg) }
        guard let key = header.kid.flatMap(keys.key(id:)) else { throw .unknownKey }
        guard let signature = Base64URL.decode(String(parts.signature)) else { throw .malformed }
        guard key.verify(signature: signature, message: Array(parts.signingInput.utf8)) else { throw .invalidSignature }

        let registered = try decode(RegisteredClaims.self, from: parts.payload)
        let seconds = now.timeIntervalSince1970
        guard let expiry = registered.exp else { throw .missingExpiry }
        guard seconds < expiry else { throw .expired }
        if let notBefore = registered.nbf, seconds < notBefore { throw .notYetValid }
        guard registered.iss == issuer else { throw .wrongIssuer }
        guard registered.aud?.contains(audience) == true else { throw .wrongAudience }
        return try decode(Claims.self, from: parts.payload)
    }

    /// The claims every token is checked on; `aud` is one string or an array of them (RFC 7519 §4.1.3).
    private struct RegisteredClaims: Decodable {
        var exp: Double?
        var nbf: Double?
        var iss: String?
        var aud: [String]?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            exp = try container.decodeIfPresent(Double.self, forKey: .exp)
            nbf = try container.decodeIfPresent(Double.self, forKey: .nbf)
            iss = try container.decodeIfPresent(String.self, forKey: .iss)
            if let one = try? container.decodeIfPresent(String.self, forKey: .aud) {
                aud = [one]
            } else {
                aud = try container.decodeIfPresent([String].self, forKey: .aud)
            }
        }

        enum CodingKeys: String, CodingKey { case exp, nbf, iss, aud }
    }

    private struct Segments {
        var header: Substring
        var payload: Substring
        var signature: Substring
        var signingInput: Substring
    }

    private static func segments(of token: String) throws(JSONWebTokenError) -> Segments {
        guard token.utf8.count <= maxLength else { throw .malformed }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformed }
        return Segments(
            header: parts[0], payload: parts[1], signature: parts[2],
            signingInput: token[..<parts[2].startIndex].dropLast())
    }

    private static func decode<Value: Decodable>(_ type: Value.Type, from segment: Substring) throws(JSONWebTokenError) -> Value {
        guard let json = Base64URL.decode(String(segment)) else { throw .malformed }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        do {
            return try decoder.decode(type, from: Data(json))
        } catch {
            throw type == Header.self ? .malformed : .invalidClaims
        }
    }
}
