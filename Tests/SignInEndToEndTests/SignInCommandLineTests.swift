import Crypto
import Domain
import Foundation
import Support
@testable import TestSupport
import Testing

/// Sign-in and account changes through the `registrar` CLI and the real worker processes; their secrets come
/// from standard input or files, never from argv.
@Suite(.tags(.live), .serialized) struct SignInCommandLineTests {
    @Test func theCommandLineRequestsACodeAndSignsIn() async throws {
        try await LiveSystem.shared { system in
            let requested = try await system.registrar(["code", "request", "--email", "cli@example.com", "--purpose", "register",
                                                        "--request-id", "cli-code"])
            #expect(requested.status == 0, "\(requested.output)")
            let code = try system.code(sentBy: "cli-code")
            // While the code is outstanding it is mailed again only after the cooldown.
            let again = try await system.registrar(["code", "request", "--email", "cli@example.com", "--purpose", "register"])
            #expect(again.status == 1 && again.output.contains("code_rate_limited") && again.output.contains("retry_after: "))
            let login = try await system.registrar(["login", "--email", "cli@example.com", "--with", "code"], input: [code])
            #expect(login.status == 0, "\(login.output)")
            #expect(login.output.contains("(account created)") && login.output.contains("refresh_token: "))
            // Secrets never travel in plaintext: not the code, not the tokens. Six digits also occur by chance inside
            // numbers and base64, so the code counts when no letter, digit or decimal point adjoins it.
            let token = try #require(login.output.split(separator: "\n").first { $0.hasPrefix("refresh_token: ") }).dropFirst(15)
            for message in try await system.allTopicMessages() {
                let text = String(decoding: message.value, as: UTF8.self)
                #expect(!Self.holds(text, standalone: code), "the code on \(message.topic), offset \(message.offset)")
                #expect(!text.contains(token), "the refresh token on \(message.topic), offset \(message.offset)")
            }
        }
    }

    @Test func everyCommandRefusesASecretOnItsCommandLineWithoutRepeatingIt() async throws {
        try await LiveSystem.shared { system in
            let canary = "Argv-Canary-\(UUID().uuidString.prefix(8))"
            let commands: [([String], [String])] = [
                (["register", "--email", "argv@example.com", "--name", "Argv"], ["password", "code"]),
                (["login", "--email", "argv@example.com"], ["password", "code"]),
                (["password", "change", "--email", "argv@example.com"], ["old-password", "new-password"]),
                (["password", "reset", "--email", "argv@example.com"], ["code", "new-password"]),
                (["email", "change", "--email", "argv@example.com", "--new-email", "argv2@example.com"], ["password", "code"]),
                (["token", "refresh"], ["refresh-token"]),
                (["delete-account"], ["access-token", "password", "code"]),
                (["update-profile", "--name", "Argv"], ["access-token"]),
                (["sessions"], ["access-token"]),
                (["sign-out"], ["access-token"]),
                (["export"], ["access-token"]),
                (["token", "revoke"], ["token"]),
            ]
            for (command, secrets) in commands {
                for secret in secrets {
                    for spelling in [["--\(secret)", canary], ["--\(secret)=\(canary)"]] {
                        let before = errors(system)
                        let result = try await system.registrar(command + spelling)
                        let said = String(errors(system).dropFirst(before.count))
                        #expect(result.status == 2, "\(command) \(secret): \(result.output)")
                        #expect(said.contains("--\(secret) is refused") && said.contains("--\(secret)-file FILE"), "\(said)")
                        #expect(!said.contains(canary) && !result.output.contains(canary))
                    }
                }
            }
            #expect(try system.backends.accounts().account(email: "argv@example.com") == nil)
        }
    }

    /// `registrar register --locale zh-CN` has its register code mailed in Simplified Chinese, and the code's recovery
    /// form (ASCII, on a line of its own) registers as well as its digits.
    @Test func theCodeACommandAsksForIsMailedInItsLocale() async throws {
        try await LiveSystem.shared { system in
            let email = "locale-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            let before = Set(try system.emails(kind: "code"))
            let subject = "Subject: =?UTF-8?B?\(Data("您的Registrar验证码".utf8).base64EncodedString())?="
            let registered = try await system.registrar(["register", "--email", email, "--name", "Lin", "--locale", "zh-CN"],
                                                        input: ["lin harbour lantern seven"]) {
                let deadline = ContinuousClock.now + .seconds(60)
                while true {
                    if let mail = try system.emails(kind: "code").first(where: { !before.contains($0) && $0.contains("To: \(email)") }) {
                        #expect(mail.split(whereSeparator: \.isNewline).contains { $0 == subject }, "\(mail)")
                        let recovery = try #require(mail.range(of: #"[A-Z2-7]{5}-[A-Z2-7]{5}-[A-Z2-7]{5}-[A-Z2-7]{5}"#, options: .regularExpression))
                        return String(mail[recovery])
                    }
                    guard ContinuousClock.now < deadline else { throw HarnessError("no register code mailed to \(email)") }
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
            #expect(registered.status == 0 && registered.output.hasPrefix("completed"), "\(registered.output)")
        }
    }

    /// Every command reads its secrets from a file or standard input: registration, sign-in, password change, refresh,
    /// the session list, sign-out (its session's refresh token refused after), password reset, email change, revocation
    /// (the token refused after) and deletion.
    @Test func secretsComeFromStandardInputOrFiles() async throws {
        try await LiveSystem.shared { system in
            let email = "piped@example.com"
            let file = system.directory + "/secret-\(UUID().uuidString.prefix(8))"
            func write(_ secret: String) throws { try (secret + "\n").write(toFile: file, atomically: true, encoding: .utf8) }

            try write("first piped harbour lantern")
            let registered = try await system.registrar(["register", "--email", email, "--name", "Piped", "--password-file", file],
                                                        mailedCode: .register, to: email)
            #expect(registered.status == 0, "\(registered.output)")
            let login = try await system.registrar(["login", "--email", email], input: ["first piped harbour lantern"])
            #expect(login.status == 0, "\(login.output)")
            #expect(try await system.registrar(["login", "--email", email, "--password-file", file]).status == 0)

            let changed = try await system.registrar(["password", "change", "--email", email],
                                                     input: ["first piped harbour lantern", "second piped harbour lantern"])
            #expect(changed.status == 0 && changed.output.contains("completed"), "\(changed.output)")
            let second = try await system.registrar(["login", "--email", email], input: ["second piped harbour lantern"])
            #expect(second.status == 0, "\(second.output)")
            #expect(try await system.registrar(["login", "--email", email], input: ["first piped harbour lantern"]).status == 1)

            let refreshToken = try #require(second.output.split(separator: "\n").first { $0.hasPrefix("refresh_token: ") }).dropFirst(15)
            try write(String(refreshToken))
            let refreshed = try await system.registrar(["token", "refresh", "--refresh-token-file", file])
            #expect(refreshed.status == 0 && refreshed.output.contains("access_token: "), "\(refreshed.output)")
            try write(String(try #require(refreshed.output.split(separator: "\n").first { $0.hasPrefix("access_token: ") }).dropFirst(14)))
            let sessions = try await system.registrar(["sessions", "--access-token-file", file])
            #expect(sessions.status == 0 && sessions.output.contains("(this one)"), "\(sessions.output)")
            let signedOut = try await system.registrar(["sign-out", "--access-token-file", file])
            #expect(signedOut.status == 0 && signedOut.output.contains("signed out"), "\(signedOut.output)")
            try write(String(try #require(refreshed.output.split(separator: "\n").first { $0.hasPrefix("refresh_token: ") }).dropFirst(15)))
            #expect(try await system.registrar(["token", "refresh", "--refresh-token-file", file]).status == 1, "the session signed out")

            let reset = try await system.registrar(["code", "request", "--email", email, "--purpose", "reset_password", "--request-id", "piped-reset"])
            #expect(reset.status == 0, "\(reset.output)")
            try write(try system.code(sentBy: "piped-reset"))
            let resetDone = try await system.registrar(["password", "reset", "--email", email, "--code-file", file], input: ["third piped harbour lantern"])
            #expect(resetDone.status == 0 && resetDone.output.contains("completed"), "\(resetDone.output)")

            let newEmail = "piped-moved@example.com"
            let change = try await system.registrar(["code", "request", "--email", newEmail, "--purpose", "change_email", "--request-id", "piped-move"])
            #expect(change.status == 0, "\(change.output)")
            let moved = try await system.registrar(["email", "change", "--email", email, "--new-email", newEmail],
                                                   input: ["third piped harbour lantern", try system.code(sentBy: "piped-move")])
            #expect(moved.status == 0 && moved.output.contains("completed"), "\(moved.output)")
            let last = try await system.registrar(["login", "--email", newEmail], input: ["third piped harbour lantern"])
            #expect(last.status == 0)

            let other = try await system.registrar(["login", "--email", newEmail], input: ["third piped harbour lantern"])
            try write(String(try #require(other.output.split(separator: "\n").first { $0.hasPrefix("refresh_token: ") }).dropFirst(15)))
            let revoked = try await system.registrar(["token", "revoke", "--token-file", file])
            #expect(revoked.status == 0, "\(revoked.output)")
            #expect(try await system.registrar(["token", "refresh", "--refresh-token-file", file]).status == 1, "the token revoked")

            let accessToken = try #require(last.output.split(separator: "\n").first { $0.hasPrefix("access_token: ") }).dropFirst(14)
            try write(String(accessToken))
            let deleted = try await system.registrar(["delete-account", "--access-token-file", file], input: ["third piped harbour lantern"])
            #expect(deleted.status == 0 && deleted.output.contains("deleted"), "\(deleted.output)")
            #expect(try system.backends.accounts().account(email: newEmail) == nil)
            #expect(try await system.registrar(["login", "--email", newEmail], input: ["third piped harbour lantern"]).status == 1)
        }
    }

    @Test func onATerminalTheSecretIsPromptedForWithoutEcho() throws {
        // A pseudo-terminal (Python's pty): the prompt comes before any connection is tried, the typed secret is
        // not echoed, and the command goes on to connect (here to nothing listening).
        let script = """
            import os, pty, select, signal, sys, time
            pid, fd = pty.fork()
            if pid == 0:
                os.execv(sys.argv[1], sys.argv[1:])
            seen = b""
            deadline = time.monotonic() + 60
            def read():
                global seen
                if not select.select([fd], [], [], max(0, deadline - time.monotonic()))[0]:
                    return False
                try:
                    chunk = os.read(fd, 4096)
                except OSError:
                    return False
                seen += chunk
                return bool(chunk)
            while b"Password: " not in seen and read():
                pass
            os.write(fd, b"Typed-Canary-5d1e\\n")
            while time.monotonic() < deadline and read():
                pass
            if time.monotonic() >= deadline:
                os.kill(pid, signal.SIGKILL)
            _, code = os.waitpid(pid, 0)
            sys.stdout.write(seen.decode(errors="replace").replace("\\r", ""))
            sys.exit(os.WEXITSTATUS(code) if os.WIFEXITED(code) else 128 + os.WTERMSIG(code))
            """
        let (status, output) = try ChildProcess.run("/usr/bin/python3", ["-c", script, Binaries.path("registrar"), "login",
                                                                          "--email", "tty@example.com", "--bootstrap", "127.0.0.1:1",
                                                                          "--public-key", SealingKeyPair.generate().publicKey.base64,
                                                                          "--timeout", "1"])
        // The login's own exit status: 1, the broker unreachable. A hang (as when the prompt came before echo was
        // off: the answer echoed, then discarded) is killed after 60 s, 137.
        #expect(status == 1)
        #expect(output.hasPrefix("Password: "), "\(output.prefix(200))")
        #expect(!output.contains("Typed-Canary-5d1e"))
    }

    /// What the CLI has written on standard error so far.
    private func errors(_ system: LiveSystem) -> String {
        (try? String(contentsOfFile: system.logs + "/cli.log", encoding: .utf8)) ?? ""
    }

    /// Whether `value` occurs in `text` other than inside a longer run of letters, digits and decimal points.
    private static func holds(_ text: String, standalone value: String) -> Bool {
        let embedding = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.")
        var rest = text[...]
        while let found = rest.range(of: value) {
            let before = found.lowerBound == text.startIndex ? nil : text[text.index(before: found.lowerBound)]
            let after = found.upperBound == text.endIndex ? nil : text[found.upperBound]
            if !(before.map(embedding.contains) ?? false) && !(after.map(embedding.contains) ?? false) { return true }
            rest = text[text.index(after: found.lowerBound)...]
        }
        return false
    }
}
