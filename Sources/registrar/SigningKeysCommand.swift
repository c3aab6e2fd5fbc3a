import Backends
import Crypto
import EventTransport
import Foundation
import Installation
import SignIn
import Support

/// `registrar keys rotate-signing` and `retire-signing`: the access-token signing key's life cycle in a key
/// directory. Rotating makes a new key that signs from then on (running account workers re-read the key
/// file) while the old one's public half stays in the JWKS; retiring drops the retired keys whose tokens
/// have all expired.
enum SigningKeysCommand {
    /// Time allowed beyond the access-token lifetime before a retired key is dropped: clock skew, and tokens
    /// signed while the rotation was landing.
    static let grace: Double = 60

    static let rotateSpec = CommandSpec(
        name: "registrar keys rotate-signing", summary: "make a new access-token signing key; the old one still verifies",
        options: options)
    static let retireSpec = CommandSpec(
        name: "registrar keys retire-signing", summary: "drop retired signing keys whose tokens have all expired",
        options: options + [.value("access-token-lifetime", "The account worker's access-token lifetime in seconds",
                                   default: String(Int(TokenIssuer.defaultAccessLifetime)))])

    private static var options: [CommandSpec.Option] { KeysCommand.directoryOptions }

    static func rotate(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: rotateSpec) { parsed in
            let (current, retired) = try keySet(parsed).rotate(now: Date())
            print("signing with \(current.publicKey.keyID); \(retired.kid) retired, still in the JWKS until "
                  + "`registrar keys retire-signing` drops it (once its tokens have expired)")
            return .success
        }
    }

    static func retire(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: retireSpec) { parsed in
            guard let seconds = try parsed.integer("access-token-lifetime"), seconds >= 0 else {
                throw UsageError.invalid("--access-token-lifetime expects seconds, 0 or more", retireSpec.helpText)
            }
            let lifetime = Double(seconds) + grace
            let keys = keySet(parsed)
            for key in try keys.retire(now: Date(), tokenLifetime: lifetime) {
                print("dropped \(key.kid)")
            }
            for key in try keys.retired() {
                let until = Date(timeIntervalSince1970: key.retiredAt + lifetime)
                print("kept \(key.kid): its tokens may be valid until \(until.formatted(.iso8601))")
            }
            return .success
        }
    }

    private static func keySet(_ parsed: ParsedArguments) -> SigningKeySet {
        KeySet.signing(in: KeysCommand.directory(parsed))
    }
}
