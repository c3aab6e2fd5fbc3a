import Crypto
import Domain
import HTTPServer
import RegistrarClient

/// `PATCH /me` with a Bearer token: changes the caller's profile — `name`, `isMapLocationEnabled` (`true`/`false`) and,
/// in `multipart/form-data` only, a new `avatar` file — as JSON, a form or multipart; a field left out is kept. A new
/// avatar is stored under a new `ProfileImages/<uuid>.jpg` before the profile is switched to it and the old one
/// deleted. `200` with the profile as `GET /me` shows it once done (a late answer: `202` and the status URL, retried with
/// the same `Idempotency-Key`); `422` with the registration's reason codes (`name_empty`, `name_too_long`, the `image_…`
/// ones), `profile_unchanged` without a field; `409` `profile_update_in_progress` while another update of the profile
/// runs; `403` `profile_incomplete`; `401` for a token that does not count. A refused update changed nothing.
extension Gateway {
    @Sendable func updateProfile(_ request: HTTPRequest) async -> HTTPResponse {
        let token: String
        switch Self.bearer(of: request) {
        case .success(let bearer): token = bearer
        case .failure(let challenge): return challenge.response
        }
        let fields: (name: String?, mapLocation: Bool?, avatar: [UInt8]?)
        do throws(RequestBody.Refusal) {
            fields = try Self.profileFields(of: request)
        } catch {
            return Answer.refused(error)
        }
        let identity = [("name", fields.name ?? "\u{0}"), ("isMapLocationEnabled", fields.mapLocation.map(String.init) ?? ""),
                        ("avatar", fields.avatar.map(sha256Hex) ?? "")]
        // The token is the caller's scope: one caller's Idempotency-Key never names another's request.
        return await idempotent(request, scope: .client("bearer:" + sha256Hex(Array(token.utf8))), fields: identity, shown: true) { [self] id in
            await answering {
                guard let (outcome, view) = try await outcome({ client, left in
                    let update = try client.profileUpdate(accessToken: token, name: fields.name, isMapLocationEnabled: fields.mapLocation,
                                                          avatar: fields.avatar, requestId: id, staging: objects)
                    return try await client.updateProfile(update, timeout: left, staging: objects)
                }) else { return nil }
                switch (outcome, view) {
                case (.profileUpdated, let view?):
                    return Answer.json(200, ["uid": view.uid, "name": view.name, "email": view.email, "profileImage": view.profileImage,
                                             "isMapLocationEnabled": view.isMapLocationEnabled])
                case (.accountChangeFailed(let refused), _):
                    switch refused.reason {
                    case .invalidCredentials, .profileUpdateInProgress, .profileIncomplete, .credentialUnsealable: return Self.refusal(refused)
                    default: return Answer.error(422, refused.reason.rawValue, refused.message)
                    }
                case (let other, _):
                    throw RegistrarClient.UnexpectedOutcome(type: other.type)
                }
            }
        }
    }

    /// The fields of a profile update's body: JSON, a form, or multipart (the only one that carries an `avatar` file).
    static func profileFields(of request: HTTPRequest) throws(RequestBody.Refusal) -> (name: String?, mapLocation: Bool?, avatar: [UInt8]?) {
        let accepted = ["multipart/form-data", RequestBody.json, RequestBody.form]
        guard let type = MediaType(request.headers["Content-Type"]), accepted.contains(type.essence) else {
            throw .unsupportedMediaType(accepted: accepted)
        }
        guard type.essence == "multipart/form-data" else {
            let body = try RequestBody.parse(request, accepting: [RequestBody.json, RequestBody.form])
            if body.fields.contains(where: { $0.name == "avatar" }) { throw .malformed("an avatar is sent as a multipart/form-data file") }
            return (try body.value("name"), try flag(try body.value("isMapLocationEnabled")), nil)
        }
        let body = try MultipartBody.parse(request.body, boundary: type.parameters["boundary"] ?? "")
        return (try body.text("name"), try flag(try body.text("isMapLocationEnabled")), try body.part("avatar")?.bytes)
    }

    /// `isMapLocationEnabled` as a form, multipart or JSON body spells it (`true`/`false`, `1`/`0`); nil when absent.
    static func flag(_ text: String?) throws(RequestBody.Refusal) -> Bool? {
        switch text {
        case nil: nil
        case "false", "0": false
        case "true", "1": true
        default: throw .malformed("isMapLocationEnabled must be true or false")
        }
    }
}
