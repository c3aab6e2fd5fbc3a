import Foundation
import Installation

extension LocalInstallation {
    /// Runs `body` on this started installation, then stops it: its directory removed when `body` succeeds, kept (and
    /// named on standard error) when it throws.
    public func run(_ body: (LocalInstallation) async throws -> Void) async throws {
        do {
            try await body(self)
        } catch {
            await stop()
            FileHandle.standardError.write(Data("kept data and logs of the failed test in \(directory)\n".utf8))
            throw error
        }
        await stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
