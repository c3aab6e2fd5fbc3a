import Accounts
import Crypto
import Domain
import Foundation

/// Registrations: seal the password, stage a large avatar, open the outcome.
extension RequestSealing {
    /// A registration request as a client publishes it: the password and the `register` code mailed to `email`
    /// sealed (without a code the registration fails `code_required`), the avatar inline, or staged in `objects`
    /// (a claim check) when it is given and the avatar too large for a message.
    public func registration(id: String = UUID().uuidString.lowercased(), email: String, password: String, code: String?, name: String,
                             avatar: [UInt8]? = nil, isMapLocationEnabled: Bool = false,
                             staging objects: (any ObjectStore)? = nil) throws -> RegistrationRequested {
        RegistrationRequested(registrationId: id, email: email, name: name,
                              sealedPassword: seal(password, for: .registrationPassword, requestId: id, email: email),
                              sealedCode: code.map { seal($0, for: .code, requestId: id, email: email) }, replyKey: replyKey(for: id),
                              avatar: try avatar.map { try Self.source(for: $0, stagedAt: StagedUploads.key(registrationId: id), staging: objects) },
                              isMapLocationEnabled: isMapLocationEnabled)
    }

    /// What a completed registration of this client's tells it: the uid and profile sealed to its request's reply key.
    public func open(_ completed: RegistrationCompleted) throws -> RegistrationResult {
        try replySecret.open(completed)
    }

    /// The outcome of a registration, opened.
    public func registrationOutcome(_ outcome: Event) throws -> RegistrarClient.RegistrationOutcome {
        switch outcome {
        case .registrationCompleted(let completed): .completed(try open(completed))
        case .registrationFailed(let failed): .failed(failed)
        case let other: throw RegistrarClient.UnexpectedOutcome(type: other.type)
        }
    }

    /// `avatar` inline, or staged at `key` in `objects` (a claim check) when it is too large for a message and `objects` is given.
    static func source(for avatar: [UInt8], stagedAt key: String, staging objects: (any ObjectStore)?) throws -> AvatarSource {
        guard avatar.count > AvatarSource.inlineLimit, let objects else { return .inline(Data(avatar).base64EncodedString()) }
        try objects.put(avatar, key: key, contentType: "application/octet-stream")
        return .staged(key: key, sha256: sha256Hex(avatar), size: avatar.count)
    }
}

/// Registrations through the topics: publish, await the outcome.
extension RegistrarClient {
    /// The outcome of one registration, opened.
    public enum RegistrationOutcome: Sendable {
        case completed(RegistrationResult)
        case failed(RegistrationFailed)
    }

    /// Publishes `request` and returns its outcome. A refused registration whose avatar was staged in `objects`
    /// has its staged object deleted: nothing staged outlives a refusal (a registration that started has had it
    /// deleted by the image worker already).
    public func register(_ request: RegistrationRequested, timeout: Duration,
                         staging objects: (any ObjectStore)? = nil) async throws -> RegistrationOutcome {
        let outcome = try registrationOutcome(try await send(.registrationRequested(request), timeout: timeout))
        if case .failed = outcome, case .staged(let key, _, _)? = request.avatar,
           key == StagedUploads.key(registrationId: request.registrationId) {
            try? objects?.delete(key)
        }
        return outcome
    }
}
