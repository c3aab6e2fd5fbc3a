import Backends
import Crypto
import Domain
import EventTransport
import Foundation

/// The full key set of a local installation in one key directory — the account worker's sealing and
/// signing keys, the code secret, the JWKS and every role's event signing key, as `registrar keys`
/// makes them — created where missing.
/// Production-mode workers never create keys, so a local installation on production stores makes them first.
public enum KeySet {
    /// Loads or creates every key in `directory`; returns the sealing public key clients seal to.
    public static func ensure(in directory: String) throws -> SealingPublicKey {
        let sealing = try SealingKeyPair.loadOrCreate(at: directory + "/" + KeyFileName.sealing)
        _ = try signing(in: directory).loadOrCreate()
        _ = try MessageAuthenticator.loadOrCreate(at: directory + "/" + KeyFileName.codeSecret)
        try EventKeyDirectory(directory).ensure(WorkerRole.allCases)
        return sealing.publicKey
    }

    /// The access-token signing keys in `directory`, with its JWKS.
    public static func signing(in directory: String) -> SigningKeySet {
        SigningKeySet(secretPath: directory + "/" + KeyFileName.signing, jwksPath: directory + "/" + KeyFileName.jwks)
    }
}
