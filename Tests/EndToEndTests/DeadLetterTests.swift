import Domain
import Foundation
import Kafka
import Registration
import Support
@testable import TestSupport
import Testing

/// Undecodable input goes to the dead-letter topic, where the CLI lists and replays it.
@Suite(.tags(.live), .serialized) struct DeadLetterTests {
    @Test func malformedMessagesAreDeadLetteredAndTheWorkerGoesOn() async throws {
        try await LiveSystem.shared { system in
            let hostile: [(String, String)] = [
                ("not json at all", "not_json"),
                (#"{"type":"RegistrationRequested","version":1,"registrationId":"x"}"#, "invalid_fields"),
                (#"{"type":"SomethingElse","version":1}"#, "unknown_type"),
                (#"{"type":"RegistrationRequested","version":7}"#, "unsupported_version"),
                (#"{"type":"RegistrationRequested","version":"1","registrationId":"v","email":"v@example.com","name":"V","sealedPassword":"cA==","isMapLocationEnabled":false}"#,
                 "unsupported_version"),
                // Complete but for a field the contract does not define: refused, not registered.
                (#"{"type":"RegistrationRequested","version":1,"registrationId":"extra","email":"extra@example.com","name":"E","sealedPassword":"cA==","isMapLocationEnabled":false,"admin":true}"#,
                 "invalid_fields"),
                (#"{"type":"WriteProfile","version":1,"registrationId":"r","uid":"u","profile":{"name":"n","email":"e","profileImage":"i","isMapLocationEnabled":true},"step":"awaiting_profile","revision":2}"#,
                 "unexpected_type"),
            ]
            for (index, (body, _)) in hostile.enumerated() {
                try await system.publish(Array(body.utf8), to: Topic.registrationRequests, key: "hostile-\(index)")
            }
            let good = try await system.request(email: "after@example.com")
            try await system.publish([good])
            let outcomes = try await system.waitForOutcomes([good.registrationId])
            guard case .registrationCompleted = outcomes[good.registrationId]?.first else { Issue.record("worker stopped working"); return }

            // The hostile messages sit on partitions of their own: their dead letters may follow the good outcome.
            for index in hostile.indices { _ = try await system.deadLetter(from: Topic.registrationRequests, key: "hostile-\(index)") }
            let letters = try await system.allTopicMessages().filter { $0.topic == Topic.deadLetters(of: Topic.registrationRequests) }
            #expect(letters.count == hostile.count)
            // A dead-lettered request whose id can be read gets its one answer, a failure; nothing is created.
            let extra = try await system.waitForOutcomes(["extra"])["extra"] ?? []
            #expect(extra.count == 1, "\(extra)")
            guard case .registrationFailed(let failed)? = extra.first else { Issue.record("no failure for extra: \(extra)"); return }
            #expect(failed.reason == .requestInvalid)
            #expect(try system.backends.accounts().account(email: "extra@example.com") == nil)
            for (index, (body, reason)) in hostile.enumerated() {
                let letter = try #require(letters.first { $0.keyString == "hostile-\(index)" })
                #expect(letter.value == Array(body.utf8), "original bytes kept")
                #expect(letter.header("dlq.reason").map { String(decoding: $0, as: UTF8.self) } == reason)
                #expect(letter.header("dlq.worker").map { String(decoding: $0, as: UTF8.self) } == "account-worker")
                #expect(letter.header("dlq.error") != nil)
            }
            #expect(system.allWorkersRunning)

            let listed = try await system.registrar(["dlq", "list"])
            #expect(listed.output.contains("\(hostile.count) dead letters"), "\(listed.output)")
            #expect(listed.output.contains("not_json"))
            // Replaying a letter sends its original bytes back: undecodable still, it is dead-lettered again.
            let first = try #require(letters.first { $0.keyString == "hostile-0" })
            let replayed = try await system.registrar(["dlq", "replay", first.topic, "\(first.partition):\(first.offset)"])
            #expect(replayed.status == 0, "\(replayed.output)")
            let deadline = ContinuousClock.now + .seconds(30)
            var count = 0
            while count <= hostile.count && ContinuousClock.now < deadline {
                count = try await system.allTopicMessages().filter { $0.topic == first.topic }.count
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(count == hostile.count + 1)
        }
    }
}
