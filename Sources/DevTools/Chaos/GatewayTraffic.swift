import Domain
import Foundation
import Installation

/// The chaos run's apps: the workload's gateway share as requests to a gateway the run starts on its installation
/// (`registrar gateway`, its limits out of the way of one machine's many apps), sent by `AppClient`s.
enum GatewayTraffic {
    /// The OAuth client the apps authenticate as at the token endpoint.
    static let client = (id: "registrar-chaos", secret: "chaos-client-secret-\(UUID().uuidString)")

    /// Starts the gateway on `installation` (its OAuth clients file in the data directory), waiting `wait` for an
    /// outcome before `202`/`503`; returns its URL.
    static func startGateway(on installation: LocalInstallation, wait: Int) async throws -> String {
        let clients = installation.directory + "/gateway-clients.json"
        let file = try JSONSerialization.data(withJSONObject: ["clients": [["id": client.id, "secret": client.secret]]])
        guard FileManager.default.createFile(atPath: clients, contents: file, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: clients])
        }
        return try await installation.startGateway([
            "--clients", clients, "--wait", String(wait), "--reply-key-file", installation.directory + "/gateway-reply.seal",
            "--requests-per-minute", "1000000", "--sign-ins-per-minute", "1000000", "--codes-per-hour", "1000000",
            "--connections-per-address", "0",
        ])
    }

    /// The registrations and code requests of `workload` the apps send, shuffled; a registration the workload then
    /// updates or deletes leads to its owner's sign-in and then its `PATCH /me` or `DELETE /me` (`photo`: the new avatar).
    static func requests(_ workload: ChaosWorkload, photo: [UInt8], using generator: inout some RandomNumberGenerator) -> [AppClient.Request] {
        let registrations = workload.gatewayRegistrations.map { registration in
            var request = self.registration(of: registration.request, code: workload.codes)
            if let action = workload.lifecycle[registration.request.registrationId] {
                request.then = lifecycle(action, of: registration.request, photo: photo)
            }
            return request
        }
        let codes = workload.gatewayCodeRequests.map { request in
            AppClient.Request(path: "/email/getCode", key: request.requestId, contentType: form,
                              body: encoded([("emailAddress", request.email), ("type", "2")]))
        }
        return (registrations + codes).shuffled(using: &generator)
    }

    /// The sign-ins of `workload` the apps send (once the registrations are under way).
    static func signIns(_ workload: ChaosWorkload) -> [AppClient.Request] {
        workload.gatewaySignIns.map { signIn(key: $0.key, email: $0.email, password: $0.password) }
    }

    /// A password sign-in at the token endpoint.
    private static func signIn(key: String, email: String, password: String) -> AppClient.Request {
        AppClient.Request(path: "/oauth/token", key: key, contentType: form,
                          body: encoded([("grant_type", "password"), ("username", email), ("password", password)]), client: client)
    }

    /// What follows the registration `request` answered `201`: its owner signs in (key `signin-<id>`), then sends `action`
    /// with the access token (key `update-<id>`: multipart, the new name, the map flag and `photo`, or half of it when
    /// corrupt; `delete-<id>`: the password as a form).
    static func lifecycle(_ action: ChaosWorkload.LifecycleAction, of request: RegistrationRequested,
                          photo: [UInt8]) -> @Sendable (AppClient.Answer) -> AppClient.Request? {
        let id = request.registrationId
        let password = ChaosWorkload.password(of: id)
        return { registered in
            guard registered.status == 201 else { return nil }
            var signIn = signIn(key: "signin-\(id)", email: request.email, password: password)
            signIn.then = { issued in
                guard issued.status == 200, let token = issued.json["access_token"] as? String else { return nil }
                switch action {
                case .delete:
                    return AppClient.Request(method: "DELETE", path: "/me", key: "delete-\(id)", contentType: form,
                                             body: encoded([("password", password)]), bearer: token)
                case .update(let name, let mapLocation, let corrupt):
                    let avatar = corrupt ? Array(photo.prefix(photo.count / 2)) : photo
                    let (type, body) = multipart([("name", name), ("isMapLocationEnabled", String(mapLocation))], avatar: avatar)
                    return AppClient.Request(method: "PATCH", path: "/me", key: "update-\(id)", contentType: type, body: body, bearer: token)
                }
            }
            return signIn
        }
    }

    /// Sends `requests` through `gateway`, started evenly over `period` and at most `inFlight` at once, each retried
    /// until it has its final answer or `deadline` passes.
    static func send(_ requests: [AppClient.Request], through gateway: AppClient, over period: Duration, inFlight: Int = 32,
                     until deadline: AppClient.Deadline) async -> [AppClient.Outcome] {
        let interval = period / max(1, requests.count)
        return await withTaskGroup(of: [AppClient.Outcome].self) { group in
            var outcomes: [AppClient.Outcome] = []
            for (index, request) in requests.enumerated() {
                if index >= inFlight, let outcome = await group.next() { outcomes += outcome }
                group.addTask { await gateway.send(request, until: deadline) }
                try? await Task.sleep(for: interval)
            }
            for await outcome in group { outcomes += outcome }
            return outcomes
        }
    }

    /// `POST /accounts` of `request` as an app sends it: multipart, the password and the register code in plain.
    private static func registration(of request: RegistrationRequested, code: [String: MailedCodes.Mailed]) -> AppClient.Request {
        var fields = [("name", request.name), ("email", request.email), ("password", ChaosWorkload.password(of: request.registrationId)),
                      ("isMapLocationEnabled", String(request.isMapLocationEnabled))]
        if let mailed = code[RegistrationRules.normalizedEmail(request.email)] { fields.append(("code", mailed.code)) }
        let avatar: [UInt8]? = if case .inline(let base64)? = request.avatar { Data(base64Encoded: base64).map(Array.init) } else { nil }
        let (type, body) = multipart(fields, avatar: avatar)
        return AppClient.Request(path: "/accounts", key: request.registrationId, contentType: type, body: body)
    }

    /// A `multipart/form-data` body of `fields` and an `avatar` file: its content type and bytes.
    private static func multipart(_ fields: [(String, String)], avatar: [UInt8]?) -> (String, [UInt8]) {
        let boundary = "chaos-\(UUID().uuidString)"
        var body = fields.flatMap { name, value in
            Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        if let avatar {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"avatar\"; filename=\"me.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n".utf8)
                + avatar + Array("\r\n".utf8)
        }
        body += Array("--\(boundary)--\r\n".utf8)
        return ("multipart/form-data; boundary=\(boundary)", body)
    }

    private static let form = "application/x-www-form-urlencoded"

    /// `fields` form-encoded.
    private static func encoded(_ fields: [(String, String)]) -> [UInt8] {
        let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        return Array(fields.map { "\($0)=\($1.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "")" }.joined(separator: "&").utf8)
    }
}
