import Foundation
@testable import TestSupport
import Testing

/// The system the route suites share lives as long as the test process, longer than the 300 s a sealed secret counts:
/// its workers' clock must keep up with the real time its clients seal with (a clock frozen at the system's start
/// refused every seal made more than 300 s later as "too old").
@Suite(.tags(.routes)) struct SharedSystemClockTests {
    @Test func theSharedSystemsClockKeepsUpWithTheRealTime() async throws {
        let system = try await InProcessSystem.shared()
        try await Task.sleep(for: .milliseconds(1_500))
        let behind = Date().timeIntervalSince(system.clock.now)
        #expect(behind >= 0 && behind < 1.2, "the workers' clock is \(behind) s behind the real time")
    }
}
