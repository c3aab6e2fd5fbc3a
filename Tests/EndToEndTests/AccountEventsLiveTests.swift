import Domain
import Foundation
import Kafka
import Support
@testable import TestSupport
import Testing

/// `account.events` on the real binaries, read by the README's consumer example (`contract/account_events_example.py
/// follow`, confluent-kafka): a registration and a password change made with the CLI come out signed, each once, even
/// with the account worker SIGKILLed right after the change; a forged event is refused; `registrar status` shows them.
@Suite(.tags(.live, .timed, .crash), .serialized) struct AccountEventsLiveTests {
    @Test func theReadmeConsumerFollowsAccountsThroughAKilledWorkerAndRefusesAForgery() async throws {
        try await LiveSystem.shared(by: "AccountEventsLiveTests") { system in
            let email = "followed-\(UUID().uuidString.prefix(6))@example.com"
            let keyFile = system.directory + "/followed.reply-key"
            let registrationId = "followed-\(UUID().uuidString.prefix(8))"
            let follower = try ChildProcess("/usr/bin/python3", [ContractSchema.directory + "/account_events_example.py", "follow",
                                                                 system.installation.bootstrap, system.keysDirectory,
                                                                 "--group", "follower-\(UUID().uuidString.prefix(8))", "--timeout", "120"],
                                            errors: .file("\(system.logs)/follower.log"))
            let registered = try await system.registrar(["register", "--email", email, "--name", "Followed Person", "--registration-id",
                                                         registrationId, "--reply-key-file", keyFile],
                                                        input: ["followed first password"], mailedCode: .register, to: email)
            #expect(registered.status == 0, "\(registered.output)")
            let uid = try #require(registered.output.range(of: #"uid [0-9a-f-]{36}"#, options: .regularExpression)
                .map { String(registered.output[$0].dropFirst(4)) }, "\(registered.output)")
            let changed = try await system.registrar(["password", "change", "--email", email],
                                                     input: ["followed first password", "followed second password"])
            #expect(changed.status == 0, "\(changed.output)")
            // Killed right after the change was answered: its event is committed, and likely not relayed yet.
            await system.kill("account-worker")
            try await system.client.publish(OutgoingMessage(topic: Topic.accountEvents, key: uid,
                                                            value: AccountEvent(.accountDeleted, uid: uid, at: Date()).encoded))
            try system.startWorker("account-worker")

            var taken: [[String: Any]] = []
            while taken.filter({ $0["uid"] as? String == uid }).count < 3, let line = await follower.nextLine() {
                taken.append(try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]))
            }
            // The forgery may sit before or after the relayed change on the account's partition: the follower says so once it reads it.
            let deadline = ContinuousClock.now + .seconds(60)
            var refusals = ""
            while !refusals.contains("refused: not signed"), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
                refusals = (try? String(contentsOfFile: "\(system.logs)/follower.log", encoding: .utf8)) ?? ""
            }
            follower.send(SIGTERM)
            while let line = await follower.nextLine() {
                taken.append(try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]))
            }
            _ = await follower.waitForExit()
            let mine = taken.filter { $0["uid"] as? String == uid }
            #expect(mine.compactMap { $0["type"] as? String } == ["AccountRegistered", "EmailVerified", "PasswordChanged"], "\(taken)")
            #expect(Set(mine.compactMap { $0["eventId"] as? String }).count == 3)
            #expect(refusals.contains("refused: not signed"), "the forged AccountDeleted: \(refusals)")
            #expect(!mine.contains { $0["type"] as? String == "AccountDeleted" })
            #expect(system.allWorkersRunning)

            let status = try await system.registrar(["status", registrationId, "--reply-key-file", keyFile])
            #expect(status.status == 0, "\(status.output)")
            let events = status.output.components(separatedBy: "account events:").last ?? ""
            for line in ["AccountRegistered", "EmailVerified", "PasswordChanged changed=password"] {
                #expect(events.contains(line), "status lacks \(line): \(status.output)")
            }
            let byUid = try await system.registrar(["status", uid])
            #expect(byUid.output.hasPrefix("account \(uid): its events") && byUid.output.contains("PasswordChanged changed=password"),
                    "\(byUid.output)")
        }
    }
}
