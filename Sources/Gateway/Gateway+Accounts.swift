import Crypto
import Domain
import HTTPServer
import RegistrarClient

/// `POST /accounts`: `multipart/form-data` with `name`, `email`, `password`, `code` (the register code mailed to the
/// address: `POST /email/getCode` type 1), `isMapLocationEnabled` and an optional `avatar` file; `201` with the uid and
/// profile once the saga completes, `409`/`422` with the reason (`code_required` without a code, `invalid_credentials`
/// for a wrong, expired or used one).
/// A refused registration's staged avatar is deleted (`RegistrarClient.register`).
extension Gateway {
    @Sendable func register(_ request: HTTPRequest) async -> HTTPResponse {
        let fields: (email: String, password: String, code: String?, name: String, avatar: [UInt8]?, mapLocation: Bool)
        do throws(RequestBody.Refusal) {
            guard let type = MediaType(request.headers["Content-Type"]), type.essence == "multipart/form-data" else {
                throw .unsupportedMediaType(accepted: ["multipart/form-data"])
            }
            let body = try MultipartBody.parse(request.body, boundary: type.parameters["boundary"] ?? "")
            let (email, password, name) = (try body.text("email"), try body.text("password"), try body.text("name"))
            guard let email, let password, let name else { throw .malformed("name, email and password are required") }
            let mapLocation = try Self.flag(try body.text("isMapLocationEnabled")) ?? false
            fields = (email, password, try body.text("code").flatMap { $0.isEmpty ? nil : $0 }, name, try body.part("avatar")?.bytes, mapLocation)
        } catch {
            return Answer.refused(error)
        }
        if let wait = signInLimiter.admit(Self.limitKey(fields.email)) { return Answer.tooManyRequests(retryAfter: wait) }
        // The request's identity is what it asks for, never its bytes: a retry with a new multipart boundary is the same request.
        let identity = [("name", fields.name), ("email", fields.email), ("password", fields.password), ("code", fields.code ?? ""),
                        ("isMapLocationEnabled", String(fields.mapLocation)), ("avatar", fields.avatar.map(sha256Hex) ?? "")]
        return await idempotent(request, scope: .anyone, fields: identity, shown: true) { [self] id in
            await answering {
                guard let outcome = try await outcome({ client, left in
                    let registration = try client.registration(id: id, email: fields.email, password: fields.password, code: fields.code,
                                                               name: fields.name,
                                                               avatar: fields.avatar, isMapLocationEnabled: fields.mapLocation, staging: objects)
                    return try await client.register(registration, timeout: left, staging: objects)
                }) else { return nil }
                switch outcome {
                case .completed(let completed):
                    let profile = completed.profile
                    return Answer.json(201, ["uid": completed.uid, "profile": [
                        "name": profile.name, "email": profile.email, "profileImage": profile.profileImage,
                        "isMapLocationEnabled": profile.isMapLocationEnabled,
                    ] as [String: any Sendable]])
                case .failed(let failed):
                    return Answer.error(failed.reason == .emailTaken ? 409 : 422, failed.reason.rawValue, failed.message)
                }
            }
        }
    }
}
