import Domain
import Foundation
import Registration
@testable import TestSupport
import Testing

/// The operator's commands: status shows the path, audit finds half-registered users, usage errors exit 2.
@Suite(.tags(.live), .serialized) struct CommandLineTests {
    @Test func statusShowsThePathAndAuditFindsOrphans() async throws {
        try await LiveSystem.shared { system in
            let registered = try await system.registrar(["register", "--email", "status@example.com",
                                                         "--name", "Status", "--registration-id", "status-1", "--map-location", "on"], input: ["long enough password"],
                                                         mailedCode: .register, to: "status@example.com")
            #expect(registered.status == 0, "\(registered.output)")
            let status = try await system.registrar(["status", "status-1"])
            #expect(status.status == 0)
            for step in ["RegistrationRequested", "StoreAvatar", "AvatarStored", "WriteProfile", "ProfileWritten", "RegistrationCompleted", "completed"] {
                #expect(status.output.contains(step), "status lacks \(step): \(status.output)")
            }
            #expect(try await system.registrar(["status", "never-registered"]).status == 1)
            #expect(!status.output.contains("uid "), "the outcome's uid is sealed to the requester")
            let keyFile = system.directory + "/status-2.reply-key"
            let kept = try await system.registrar(["register", "--email", "kept@example.com",
                                                   "--name", "Kept", "--registration-id", "status-2", "--reply-key-file", keyFile],
                                                  input: ["long enough password"], mailedCode: .register, to: "kept@example.com")
            let uid = try #require(kept.output.range(of: #"uid [0-9a-f-]{36}"#, options: .regularExpression).map { kept.output[$0] }, "\(kept.output)")
            let opened = try await system.registrar(["status", "status-2", "--reply-key-file", keyFile])
            #expect(opened.output.contains(String(uid) + ", profile image "), "the requester's key opens it: \(opened.output)")

            #expect(try await system.registrar(["audit", "--grace", "0"]).status == 0)
            try system.backends.profiles().write(Profile(name: "Ghost", email: "ghost@example.com", profileImage: "x", isMapLocationEnabled: false),
                                                 uid: "00000000-0000-0000-0000-000000000000", revision: 1)
            let audit = try await system.registrar(["audit", "--grace", "0"])
            #expect(audit.status == 1)
            #expect(audit.output.contains("profile_without_account"))
            // The orphan goes again: the system is shared.
            try system.backends.profiles().deleteProfile(uid: "00000000-0000-0000-0000-000000000000", revision: 1)
        }
    }

    @Test func usageErrorsExitWithTwoAndHelpWithZero() async throws {
        try await LiveSystem.shared { system in
            #expect(try await system.registrar(["register", "--bogus"]).status == 2)
            #expect(try await system.registrar(["register", "--email"]).status == 2)
            let help = try await system.registrar(["register", "--help"])
            #expect(help.status == 0)
            #expect(help.output.contains("--avatar"))
            #expect(try await system.registrar(["no-such-command"]).status == 2)
        }
    }

    @Test func workersShutDownCleanlyOnSIGTERM() async throws {
        try await LiveSystem.with { system in
            let registered = try await system.registrar(["register", "--email", "calm@example.com",
                                                         "--name", "Calm"], input: ["long enough password"],
                                                         mailedCode: .register, to: "calm@example.com")
            #expect(registered.status == 0, "\(registered.output)")
            for name in ["account-worker", "image-worker", "profile-worker"] {
                #expect(await system.installation.signal(name, SIGTERM) == 0, "\(name) exits 0 after committing and leaving its group")
                let log = try String(contentsOfFile: "\(system.logs)/\(name).log", encoding: .utf8)
                #expect(log.contains(#""message":"stopped""#), "\(name) logged its clean stop")
            }
        }
    }
}
