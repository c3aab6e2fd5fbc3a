import Foundation
import Support
import Synchronization
@testable import TestSupport
import Testing

/// A running `kafka-tool` process whose JSON output lines a test waits for.
final class ToolProcess: Sendable {
    struct Timeout: Error, CustomStringConvertible {
        var description: String
    }

    let arguments: [String]
    private let process: ChildProcess
    /// Filled by a task reading the output, which must not keep the process object alive.
    private let log = EventLog()

    /// Starts `kafka-tool` with `arguments`.
    init(_ arguments: [String]) throws {
        self.arguments = arguments
        process = try ChildProcess(try KafkaToolBinary.url().path, arguments, environment: ["LOG_LEVEL": "info"],
                                   input: .pipe, output: .captured, errors: .captured)
        Task { [process, log] in
            while let line = await process.nextLine() { log.receive(line) }
            log.finish()
        }
    }

    deinit { process.send(SIGKILL) }

    var processIdentifier: Int32 { process.pid }

    /// Everything the process wrote on standard error so far.
    var standardError: String { process.errorOutput }

    /// Every event printed so far.
    var events: [ToolEvent] { log.events }

    /// The next event (after those already returned) that satisfies `predicate`, waiting up to `timeout`.
    func next(
        within timeout: Duration = .seconds(30), where predicate: @escaping @Sendable (ToolEvent) -> Bool
    ) async throws -> ToolEvent {
        let event = await log.next(within: timeout, where: predicate)
        guard let event else {
            throw Timeout(description: "no matching event from kafka-tool \(arguments.joined(separator: " ")) within \(timeout); "
                + "events: \(events.map(\.event)), stderr: \(standardError)")
        }
        return event
    }

    /// The next event named `name`.
    func next(_ name: String, within timeout: Duration = .seconds(30)) async throws -> ToolEvent {
        try await next(within: timeout) { $0.event == name }
    }

    /// Writes a line to the process's standard input.
    func write(line: String) {
        process.write(Array((line + "\n").utf8))
    }

    /// Closes the process's standard input.
    func closeInput() {
        process.closeInput()
    }

    func signal(_ number: Int32) {
        process.send(number)
    }

    /// Waits for the process to exit (killing it after `timeout`) and returns its status.
    func exitStatus(within timeout: Duration = .seconds(30)) async throws -> Int32 {
        let process = self.process
        let timer = Task {
            try await Task.sleep(for: timeout)
            process.send(SIGKILL)
            return true
        }
        let status = await process.waitForExit()
        timer.cancel()
        // Every event it printed is in the log once its output has ended.
        _ = await log.next(within: timeout) { _ in false }
        if (try? await timer.value) == true {
            throw Timeout(description: "kafka-tool \(arguments.joined(separator: " ")) did not exit within \(timeout)")
        }
        return status
    }
}

/// Finds the `kafka-tool` binary built next to this test bundle.
enum KafkaToolBinary {
    struct Missing: Error, CustomStringConvertible {
        var description: String
    }

    /// `$KAFKA_TOOL`, else `kafka-tool` in the directory of the running test bundle (works for
    /// `.build` and any `--scratch-path`), else `.build/debug/kafka-tool` under the package root.
    static func url(filePath: String = #filePath) throws -> URL {
        var candidates: [URL] = []
        if let path = ProcessInfo.processInfo.environment["KAFKA_TOOL"] { candidates.append(URL(fileURLWithPath: path)) }
        for path in [Bundle.main.executablePath, CommandLine.arguments.first].compactMap({ $0 }) {
            var directory = URL(fileURLWithPath: path).resolvingSymlinksInPath().deletingLastPathComponent()
            // The bundle may be a directory (`X.xctest/...`): look in each parent up to the build directory.
            for _ in 0..<4 {
                candidates.append(directory.appendingPathComponent("kafka-tool"))
                directory.deleteLastPathComponent()
            }
        }
        var root = URL(fileURLWithPath: filePath)
        while root.path != "/" && !FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) {
            root.deleteLastPathComponent()
        }
        candidates.append(root.appendingPathComponent(".build/debug/kafka-tool"))
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw Missing(description: "kafka-tool not found (build it: swift build --product kafka-tool); looked at "
                + candidates.map(\.path).joined(separator: ", "))
        }
        return found
    }
}

/// The events of one process, filled by the task reading its output.
private final class EventLog: Sendable {
    private struct State {
        var events: [ToolEvent] = []
        var cursor = 0
        var isFinished = false
        var waiter: (predicate: @Sendable (ToolEvent) -> Bool, continuation: CheckedContinuation<ToolEvent?, Never>)?
    }

    private let state = Mutex(State())

    var events: [ToolEvent] { state.withLock { $0.events } }

    /// The next event after those already returned that satisfies `predicate`; nil after `timeout`
    /// or once the output ended.
    func next(within timeout: Duration, where predicate: @escaping @Sendable (ToolEvent) -> Bool) async -> ToolEvent? {
        let timer = Task { [self] in
            try await Task.sleep(for: timeout)
            state.withLock { $0.waiter.take() }?.continuation.resume(returning: nil)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { (continuation: CheckedContinuation<ToolEvent?, Never>) in
            let found: ToolEvent?? = state.withLock { state in
                if let event = Self.take(&state, predicate) { return .some(event) }
                if state.isFinished { return .some(nil) }
                state.waiter = (predicate, continuation)
                return nil
            }
            if let found { continuation.resume(returning: found) }
        }
    }

    func receive(_ line: String) {
        // A line that is not an event (the broker's bootstrap line) is kept as a `text` event.
        let event = (try? JSONDecoder().decode(ToolEvent.self, from: Data(line.utf8))) ?? ToolEvent(event: "text", value: line)
        let resumed: (CheckedContinuation<ToolEvent?, Never>, ToolEvent)? = state.withLock { state in
            state.events.append(event)
            guard let waiter = state.waiter, let found = Self.take(&state, waiter.predicate) else { return nil }
            state.waiter = nil
            return (waiter.continuation, found)
        }
        if let (continuation, event) = resumed { continuation.resume(returning: event) }
    }

    func finish() {
        let waiter = state.withLock { state in
            state.isFinished = true
            return state.waiter.take()
        }
        waiter?.continuation.resume(returning: nil)
    }

    private static func take(_ state: inout State, _ predicate: (ToolEvent) -> Bool) -> ToolEvent? {
        guard let index = state.events[state.cursor...].firstIndex(where: predicate) else { return nil }
        state.cursor = index + 1
        return state.events[index]
    }
}
