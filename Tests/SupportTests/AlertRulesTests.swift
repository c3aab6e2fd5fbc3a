import Foundation
import Support
@testable import TestSupport
import Testing

/// The alert rules `deploy/prometheus` ships: `promtool check rules` accepts them, `promtool test rules` plays each
/// rule's firing and quiet cases (`registrar-alerts.test.yml`), and the example scrape configuration loads them.
@Suite(.tags(.unit)) struct AlertRulesTests {
    static let directory = URL(filePath: #filePath).deletingLastPathComponent().appending(path: "../../deploy/prometheus").standardized.path

    @Test(arguments: [
        ["check", "rules", "registrar-alerts.yml"],
        ["test", "rules", "registrar-alerts.test.yml"],
        ["check", "config", "prometheus.yml"],
    ])
    func promtoolAccepts(_ arguments: [String]) async throws {
        let file = Self.directory + "/" + arguments[2]
        let promtool = try ChildProcess("/usr/bin/promtool", Array(arguments.prefix(2)) + [file], errors: .standardOutput)
        var output: [String] = []
        while let line = await promtool.nextLine() { output.append(line) }
        #expect(await promtool.waitForExit() == 0, "\(output.joined(separator: "\n"))")
        #expect(output.contains { $0.contains("SUCCESS") })
    }
}
