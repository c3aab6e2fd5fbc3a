import Crypto
import Foundation

/// The JSON Web Key Set the gateway serves: the `jwks.json` that `registrar keys` writes, re-read whenever a rotation
/// rewrites it, without the retired keys whose tokens have all expired — those listed, with when they were
/// retired, in `access-tokens.ed25519.retired` beside it (when the gateway can read that file), retired more than
/// the access-token lifetime plus a minute ago — even before `registrar keys retire-signing` drops them.
public struct ServedKeySet: Sendable {
    private let jwks: JSONWebKeySetFile
    private let retired: ReloadingFile<[SigningKeySet.RetiredKey]>?
    private let tokenLifetime: Double

    /// Serves `jwksPath`, less the expired keys of `retiredPath` (nil: none known) for tokens valid `tokenLifetime` seconds.
    public init(jwksPath: String, retiredPath: String?, tokenLifetime: Double) throws {
        jwks = try JSONWebKeySetFile(path: jwksPath)
        retired = try retiredPath.map { path in
            try ReloadingFile(path: path) { path in
                guard let data = FileManager.default.contents(atPath: path) else { return [] }
                return try JSONDecoder().decode([SigningKeySet.RetiredKey].self, from: data)
            }
        }
        self.tokenLifetime = tokenLifetime
    }

    /// The key set as served at `now`.
    public func json(now: Date = Date()) -> String {
        let cutoff = now.timeIntervalSince1970 - tokenLifetime - 60
        let expired = Set((retired?.current ?? []).filter { $0.retiredAt < cutoff }.map(\.kid))
        return JSONWebKeySet(entries: jwks.current.entries.filter { !expired.contains($0.keyID) }).json
    }
}
