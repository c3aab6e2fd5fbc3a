import Crypto
import Foundation
import RegistrarClient

/// The id a request is published under, and the capability that reads its answer at a status URL, both keyed with
/// the gateway's reply secret (replicas sharing `--reply-key-file` compute the same ones; no one else can).
///
/// The id is an HMAC of the request as the workers see it: the caller's scope (the OAuth client, for token
/// requests), the `Idempotency-Key`, method, path and the parsed fields by name (an avatar by its SHA-256), never
/// the raw body. So a retry by any client (a new multipart boundary, JSON instead of a form) is the same request,
/// and answered once by the workers' memo; the same key with other fields, or from another client, is another
/// request; and no one can name a request id before the gateway publishes it.
struct RequestIdentity: Sendable {
    private let ids: MessageAuthenticator
    private let capabilities: MessageAuthenticator

    init(_ secret: ReplySecret) {
        ids = secret.authenticator(for: "request-id")
        capabilities = secret.authenticator(for: "status-capability")
    }

    /// Whose requests share a namespace of idempotency keys.
    enum Scope: Equatable {
        /// An authenticated OAuth client's.
        case client(String)
        /// Anyone's: the request's fields are its identity.
        case anyone

        var label: String {
            switch self {
            case .client(let id): "client:" + id
            case .anyone: "anyone"
            }
        }
    }

    /// The request id (64 hex digits) of a request in `scope` with idempotency `key`, to `method path`, with `fields`.
    func id(scope: Scope, key: String, method: String, path: String, fields: [(name: String, value: String)]) -> String {
        var message: [UInt8] = []
        for part in [scope.label, key, method, path] + fields.sorted(by: { $0.name < $1.name }).flatMap({ [$0.name, $0.value] }) {
            let bytes = Array(part.utf8)
            message += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: UInt32(bytes.count) >> $0) } + bytes
        }
        return hex(ids.tag(message))
    }

    /// The capability (43 base64url characters) whose status URL reads request `id`'s answer.
    func capability(of id: String) -> String {
        Base64URL.encode(capabilities.tag(Array(id.utf8)))
    }
}
