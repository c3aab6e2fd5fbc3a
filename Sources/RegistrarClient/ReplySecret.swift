import Crypto
import Domain
import Foundation

/// The secret a client derives each request's reply key pair from: a request's outcome is sealed to the pair of
/// its own id, so no outcome sealed for one request opens in another, and a client holding the same secret (a
/// gateway replica sharing `--reply-key-file`, the same process after a restart) opens the answer of a request it
/// re-publishes. The secret is the 32-byte secret of an X25519 key file; the derivation is keyed BLAKE2b
/// (`SealingKeyPair.derivedKeyPair(for:)`).
public struct ReplySecret: Sendable {
    private let master: SealingKeyPair

    public init(_ master: SealingKeyPair) { self.master = master }

    /// A new random secret, kept in memory only: each request's key pair is as good as a fresh one.
    public static func generate() -> ReplySecret { ReplySecret(.generate()) }

    /// The secret in the key file at `path` (0600), created if missing.
    public static func loadOrCreate(at path: String) throws -> ReplySecret { ReplySecret(try .loadOrCreate(at: path)) }

    /// The key pair request `requestId`'s outcomes are sealed to.
    public func keyPair(for requestId: String) -> SealingKeyPair { master.derivedKeyPair(for: requestId) }

    /// The `replyKey` (base64) request `requestId` carries.
    public func replyKey(for requestId: String) -> String { keyPair(for: requestId).publicKey.base64 }

    /// An HMAC keyed with a subkey of this secret for `label` (request ids and status capabilities of a gateway).
    public func authenticator(for label: String) -> MessageAuthenticator { master.authenticator(for: label) }

    /// The `T` sealed (base64) to request `requestId`'s key pair, which must name that request and `T`'s purpose;
    /// else `NotOurAnswer`: sealed to another key (the request id was used with another reply key) or copied from
    /// another request's answer.
    public func open<T: SealedAnswer>(_ sealed: String, as type: T.Type, answering requestId: String) throws -> T {
        guard let bytes = Data(base64Encoded: sealed), let plaintext = try? keyPair(for: requestId).open(Array(bytes)),
              let value = T.opened(from: plaintext, answering: requestId) else {
            throw NotOurAnswer(requestId: requestId, purpose: T.purpose)
        }
        return value
    }

    /// The uid and profile a completed registration sealed to its request's key pair.
    public func open(_ completed: RegistrationCompleted) throws -> RegistrationResult {
        try open(completed.sealedResult, as: RegistrationResult.self, answering: completed.registrationId)
    }
}

/// A genuine outcome (signed by the worker that answers) whose sealed answer is not this client's: sealed to another
/// reply key, because the request id was used before with another one, or not naming this request and purpose.
public struct NotOurAnswer: Error, CustomStringConvertible {
    public var requestId: String
    public var purpose: AnswerPurpose

    public var description: String {
        "request \(requestId) was answered, but its \(purpose.rawValue) is not sealed to this client's reply key for it "
            + "(the request id was used before with another reply key): use a new request id"
    }
}
