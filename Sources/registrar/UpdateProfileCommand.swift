import Backends
import Console
import Domain
import EventTransport
import Foundation
import RegistrarClient
import S3Store
import Support

/// `registrar update-profile`: changes the name, the map-location flag or the avatar of the access token's account (the
/// profile update saga), printing the profile it left.
enum UpdateProfileCommand {
    static let spec = CommandSpec(
        name: "registrar update-profile", summary: "change the name, map location or avatar of the access token's profile",
        usage: "[--name N] [--map-location on|off] [--avatar FILE] [--access-token-file F] [--json]   "
            + "(at least one change; else the access token on standard input or prompted)",
        options: FlowClient.options(Secret.accessToken.options + [
            .value("name", "New display name, 1–30 characters"),
            .value("map-location", "on or off"),
            .value("avatar", "Image file for the new avatar (stored under a new id; the old one is deleted once the profile names it)"),
            JSONOutput.option,
        ] + BackendOptions.specs))

    static func run(_ arguments: [String]) async -> ExitCode {
        await FlowClient.run(arguments, spec: spec, secrets: { _ in [Secret.accessToken] }) { parsed, flow in
            let mapLocation = try parsed.value("map-location", as: "on or off") { ["on": true, "off": false][$0] }
            let avatar = try parsed.value("avatar").map { path in
                guard let data = FileManager.default.contents(atPath: path) else { throw UsageError.invalid("cannot read avatar file \(path)", "") }
                return Array(data)
            }
            let objects = try BackendOptions(parsed, dataDirectory: try ConnectionOptions(parsed, quietUnlessVerbose: true).dataDirectory).objectStore()
            let request = try flow.client.profileUpdate(accessToken: flow.secrets[0], name: parsed.value("name"), isMapLocationEnabled: mapLocation,
                                                        avatar: avatar, requestId: flow.requestId, staging: objects)
            // Published again on a restarted local broker (a staged avatar stays where it is).
            guard let (outcome, profile) = try await flow.supply.attempt(until: .now + flow.timeout, { client, left in
                try await client.updateProfile(request, timeout: left, staging: objects)
            }) else { throw RegistrarClient.TimedOut(request: .profileUpdateRequested(request), timeout: flow.timeout) }
            switch (outcome, profile) {
            case (.profileUpdated, let profile?):
                if flow.json {
                    JSONOutput.print(["requestId": flow.requestId, "outcome": "profile_updated", "uid": profile.uid, "name": profile.name,
                                      "email": profile.email, "profileImage": profile.profileImage,
                                      "isMapLocationEnabled": profile.isMapLocationEnabled])
                } else {
                    print("updated \(flow.requestId): uid \(profile.uid), name \(profile.name), profile image \(profile.profileImage), "
                          + "map location \(profile.isMapLocationEnabled ? "on" : "off")")
                }
                return .success
            case (.accountChangeFailed(let failed), _):
                return flow.refused(failed.reason, failed.message)
            case (let other, _):
                throw RegistrarClient.UnexpectedOutcome(type: other.type)
            }
        }
    }
}
