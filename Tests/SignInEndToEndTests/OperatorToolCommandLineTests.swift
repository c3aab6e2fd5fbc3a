import Domain
import Foundation
@testable import TestSupport
import Testing

/// The operator's account tools through the `registrar operator` CLI and the real worker processes: each command signed
/// with the installation's operator key, its answer printed; a disabled account refused at sign-in; the forced reset's
/// code mailed by the code dispatch worker under an id nobody else can take first; a deletion run to its end.
@Suite(.tags(.live), .serialized) struct OperatorToolCommandLineTests {
    @Test func theOperatorFindsUnlocksDisablesEnablesResetsAndDeletes() async throws {
        try await LiveSystem.shared { system in
            let email = "operated@example.com"
            let uid = try await system.register(email, password: "operated harbour lantern 42")
            let operate = { (arguments: [String]) in
                try await system.registrar(["operator"] + arguments + ["--email", email, "--actor", "ada"])
            }
            let found = try await operate(["find", "--json"])
            #expect(found.status == 0, "\(found.output)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(found.output.utf8)) as? [String: Any])
            #expect(report["uid"] as? String == uid && report["state"] as? String == "active" && report["verified"] as? Bool == true)

            let unlocked = try await operate(["unlock"])
            #expect(unlocked.status == 0 && unlocked.output.contains("locked: passwords no, codes no"), "\(unlocked.output)")
            let disabled = try await operate(["disable"])
            #expect(disabled.status == 0 && disabled.output.contains("state: disabled"), "\(disabled.output)")
            let refused = try await system.registrar(["login", "--email", email], input: ["operated harbour lantern 42"])
            #expect(refused.status == 1 && refused.output.contains("account_disabled"), "\(refused.output)")
            let audit = try await system.registrar(["audit", "--grace", "0", "--json"])
            let census = try #require(try JSONSerialization.jsonObject(with: Data(audit.output.utf8)) as? [String: Any])
            #expect((census["disabled"] as? [String])?.contains(uid) == true && (census["accounts"] as? [String: Int])?["disabled"] ?? 0 >= 1,
                    "the audit names the disabled account: \(audit.output)")
            let enabled = try await operate(["enable"])
            #expect(enabled.status == 0 && enabled.output.contains("state: active"), "\(enabled.output)")

            // Whoever reads operator.requests cannot take the reset code's request id first: a code request under a guess
            // from the operator request's id (for another address) leaves the owner's code to be mailed.
            guard case .codeSent = try await system.requestCode("mallory@example.com", .resetPassword, id: "cli-forced-reset.reset-code") else {
                Issue.record("the guess was not answered"); return
            }
            let reset = try await operate(["reset-password", "--request-id", "cli-forced-reset"])
            #expect(reset.status == 0 && reset.output.contains("password: none") && reset.output.contains("reset code: sent"), "\(reset.output)")
            let codeId = try #require(reset.output.firstMatch(of: /reset code: sent \((reset-code-[0-9a-f]{32})\)/)?.1)
            let code = try system.code(sentBy: String(codeId))
            let again = try await operate(["reset-password", "--request-id", "cli-forced-reset"])
            #expect(again.status == 0 && again.output.contains("answered before cli-forced-reset: nothing was done again"), "\(again.output)")
            #expect(Set(try system.codeEmails(to: email, .resetPassword).compactMap(LiveSystem.code(in:))) == [code], "a replay mails no other code")
            let newPassword = try await system.registrar(["password", "reset", "--email", email], input: [code, "operated new harbour lantern 42"])
            #expect(newPassword.status == 0, "\(newPassword.output)")

            let deleted = try await operate(["delete", "--wait", "--timeout", "90"])
            #expect(deleted.status == 0 && deleted.output.contains("deleted: the account, its profile and its avatar are gone"), "\(deleted.output)")
            let gone = try await operate(["find"])
            #expect(gone.status == 1 && gone.output.contains("account_unknown"), "\(gone.output)")
            let actions = try await system.accountEvents(of: uid, count: 10).compactMap(\.actor)
            #expect(Set(actions) == ["operator:ada"] && actions.count >= 6)
            let status = try await system.registrar(["status", uid])
            #expect(status.output.contains("AccountDisabled by=operator:ada") && status.output.contains("AccountDeletionOrdered by=operator:ada"),
                    "\(status.output)")

            // Without the operator's key nothing is sent: a user's own key is no operator's.
            let keyless = try await system.registrar(["operator", "find", "--email", email, "--operator-key-file", "/nonexistent"])
            #expect(keyless.status != 0)
        }
    }
}
