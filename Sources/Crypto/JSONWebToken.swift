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

    /// Checks the algorithm, the signature and the validity period (`exp` required, `nbf` if present)
    /// at `now`, then decodes the claims.
    public static func verify<Claims: Decodable>(
        _ token: String, as type: Claims.Type = Claims.self, with key: SigningPublicKey, now: Date = Date()
    ) throws(JSONWebTokenError) -> Claims {
        let parts = try segments(of: token)
        let header = try decode(Header.self, from: parts.header)
        guard header.alg == algorithm, header.crit == nil else { throw .unsupportedAlgorithm(header.alg) }
        guard let signature = Base64URL.decode(String(parts.signature)) else { throw .malformed }
        guard key.verify(signature: signature, message: Array(parts.signingInput.utf8)) else { throw .invalidSignature }

        let period = try decode(ValidityPeriod.self, from: parts.payload)
        let seconds = now.timeIntervalSince1970
        guard let expiry = period.exp else { throw .missingExpiry }
        guard seconds < expiry else { throw .expired }
        if let notBefore = period.nbf, seconds < notBefore { throw .notYetValid }
        return try decode(Claims.self, from: parts.payload)
    }

    private struct ValidityPeriod: Decodable {
        var exp: Double?
        var nbf: Double?
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
