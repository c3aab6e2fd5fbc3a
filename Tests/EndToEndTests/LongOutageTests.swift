import Domain
import Foundation
import Installation
@testable import TestSupport
import Synchronization
import Testing

/// Issue 23 point 6 on the real binaries: an image store down (every S3 request answered 503) for three times the saga
/// deadline undoes no registration. The image worker, retrying, sends a heartbeat (`AvatarWaiting`) every 2 s that keeps
/// every saga waiting for its avatar alive (12 registrations on 6 partitions: some wait behind others, whose heartbeat
/// they share), and every registration completes once the store is back. `REGISTRAR_LONG_OUTAGE_SECONDS=600` holds
/// the outage for the issue's 10 minutes on the default deadline (120 s) and heartbeat interval (30 s) instead.
@Suite(.tags(.live, .timed, .outage), .serialized) struct LongOutageTests {
    @Test func registrationsOutlastAnImageStoreDownLongerThanTheirDeadline() async throws {
        let long = ProcessInfo.processInfo.environment["REGISTRAR_LONG_OUTAGE_SECONDS"].flatMap { Int($0) }
        let outage = long ?? 30
        let arguments = long == nil ? ["account-worker": ["--saga-deadline", "10"], "image-worker": ["--heartbeat-interval", "2"]] : [:]
        let relay = Mutex<HTTPRelay?>(nil)
        try await LiveSystem.with(extraArguments: arguments, relayingImages: { port in
            let created = try HTTPRelay(to: port)
            relay.withLock { $0 = created }
            return created
        }) { system in
            try await GroupJoins.wait(for: ["account-worker", "image-worker", "profile-worker"], logs: system.logs)
            let photo = try await Fixtures.noiseJPEG(width: 64, height: 64)
            var requests: [RegistrationRequested] = []
            for index in 0..<12 {
                requests.append(try await system.request(email: "outage\(index)@example.com", avatar: index.isMultiple(of: 2) ? photo : nil))
            }
            let url = try #require(relay.withLock { $0?.outageURL(seconds: outage) })
            let began = ContinuousClock.now
            _ = try runCommand("/usr/bin/curl", ["-sf", "-X", "POST", url])
            try await system.publish(requests)
            let outcomes = try await system.waitForOutcomes(requests.map(\.registrationId), timeout: .seconds(outage + 120))
            let waited = ContinuousClock.now - began
            print("image store down \(outage) s (saga deadline \(long == nil ? 10 : 120) s): \(requests.count) registrations answered after "
                  + waited.formatted(.units(allowed: [.seconds], fractionalPart: .show(length: 1))))
            #expect(waited >= .seconds(outage), "the registrations waited for the store")
            for request in requests {
                let all = try #require(outcomes[request.registrationId])
                #expect(Set(all.map(EventCodec.encode)).count == 1, "one outcome for \(request.email)")
                guard case .registrationCompleted = all.first else {
                    Issue.record("\(request.email): \(String(describing: all.first))")
                    continue
                }
            }
            let log = try String(contentsOfFile: system.logs + "/image-worker.log", encoding: .utf8)
            #expect(log.contains("waiting step's heartbeat sent"), "the image worker sent heartbeats")
            #expect(try system.backends.accounts().accounts().count == requests.count)
            #expect(try system.audit().isEmpty)
            #expect(system.allWorkersRunning)
        }
        relay.withLock { $0?.close() }
    }
}
