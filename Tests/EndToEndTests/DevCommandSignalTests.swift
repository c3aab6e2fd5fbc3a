import Foundation
import Support
@testable import TestSupport
import Testing

/// The dev commands that start a local installation — its broker, workers and gateway are processes of their own —
/// stop them all when they are asked to stop: SIGTERM (a CI timeout, `kill`) or SIGINT (Ctrl-C), and then end as the
/// signal says. Before, a SIGTERMed chaos run died alone and left them running.
@Suite(.tags(.live, .storeFree)) struct DevCommandSignalTests {
    @Test(arguments: [("chaos", SIGTERM), ("demo", SIGINT)])
    func aSignalledCommandLeavesNoProcessBehind(command: String, signal: Int32) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("signalled-\(command)-\(UUID().uuidString)").path
        let log = directory + ".log"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The broker and four workers, and for the chaos run a gateway (its apps' share).
        let arguments = command == "chaos"
            ? ["chaos", "--data-dir", directory, "--registrations", "100", "--rate", "5", "--gateway-share", "30"]
            : ["demo", "--data-dir", directory]
        let expected = command == "chaos" ? 6 : 5
        let run = try ChildProcess(Binaries.path("registrar-dev"), arguments, output: .discarded, errors: .file(log))
        var children = Self.children(of: run.pid)
        let deadline = ContinuousClock.now + .seconds(60)
        while children.count < expected, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
            children = Self.children(of: run.pid)
        }
        #expect(children.count >= expected, "the installation's processes: \(children)")

        run.send(signal)
        let status = try await Self.exitStatus(of: run, within: .seconds(60))
        #expect(status == 128 + signal, "registrar-dev \(command) ended as the signal says; its log: \(log)")
        let survivors = children.filter { Self.isAlive($0.pid, named: $0.command) }
        #expect(survivors.isEmpty, "left running after registrar-dev \(command) was signalled: \(survivors)")
        for survivor in survivors { kill(survivor.pid, SIGKILL) }
        if run.isRunning { run.send(SIGKILL) }
        if survivors.isEmpty, status == 128 + signal { try? FileManager.default.removeItem(atPath: log) }
    }

    /// The processes whose parent is `pid`, with their command lines.
    static func children(of pid: Int32) -> [(pid: Int32, command: String)] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).compactMap { child in
            guard parent(of: child) == pid else { return nil }
            return (child, commandLine(of: child))
        }
    }

    /// The parent of `pid` (the fourth field of `/proc/<pid>/stat`, after the command in parentheses).
    static func parent(of pid: Int32) -> Int32? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        return fields.count > 1 ? Int32(fields[1]) : nil
    }

    static func commandLine(of pid: Int32) -> String {
        let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") ?? Data()
        return String(decoding: data.map { $0 == 0 ? 32 : $0 }, as: UTF8.self)
    }

    /// Whether `pid` still runs the same command (not a zombie, not a new process that took the number).
    static func isAlive(_ pid: Int32, named command: String) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let end = stat.lastIndex(of: ")") else { return false }
        let state = stat[stat.index(after: end)...].split(separator: " ").first
        return state != "Z" && commandLine(of: pid) == command
    }

    /// The exit status of `process`, failing when it has not ended within `limit`.
    static func exitStatus(of process: ChildProcess, within limit: Duration) async throws -> Int32 {
        try await withThrowingTaskGroup(of: Int32?.self) { group in
            group.addTask { await process.waitForExit() }
            group.addTask {
                try await Task.sleep(for: limit)
                process.send(SIGKILL)
                return nil
            }
            defer { group.cancelAll() }
            guard let status = try await group.next() ?? nil else {
                Issue.record("still running \(limit) after the signal")
                return -1
            }
            return status
        }
    }
}
