import Foundation
import Support

/// A wall clock that steps under a running process, as an NTP correction or a resumed VM steps it: libfaketime (Debian
/// `faketime`) preloaded with an offset read from a file at every call (`step(to:)`), the monotonic clock left alone.
/// `ClockStepTests` and the chaos run's clock steps start the account worker with ``environment``.
public struct SteppedClock: Sendable {
    public static let library = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"

    /// Whether libfaketime is installed.
    public static var isAvailable: Bool { FileManager.default.fileExists(atPath: library) }

    /// The file holding the offset (`+150`, `-600`) from the real clock.
    public let offsetFile: String
    /// The environment of a process whose clock this steps.
    public let environment: [String: String]

    /// Prepares a clock at offset 0 in `directory`: its offset file and the condition shim (built with the toolchain's clang).
    public init(in directory: String) throws {
        offsetFile = directory + "/faketime"
        // libfaketime fakes the clocks librdkafka computes its deadlines from and converts pthread_cond_timedwait's,
        // but not C11 cnd_timedwait's (glibc's calls pthread inside), with which librdkafka waits: its threads would
        // wait the offset longer, which no real clock step does. A shim waits through pthread_cond_timedwait.
        // FAKETIME_SHARED set (to no segment): libfaketime setting it as it loads left the worker without its arguments.
        environment = [
            "LD_PRELOAD": "\(try Self.conditionShim(in: directory)) \(Self.library)", "FAKETIME_TIMESTAMP_FILE": offsetFile,
            "FAKETIME_NO_CACHE": "1", "FAKETIME_DONT_FAKE_MONOTONIC": "1", "FAKETIME_SHARED": "none none",
        ]
        try step(to: 0)
    }

    /// Sets the clock `seconds` from the real one (negative: behind), at once for every process started with ``environment``.
    public func step(to seconds: Int) throws {
        try "\(seconds >= 0 ? "+" : "")\(seconds)".write(toFile: offsetFile, atomically: true, encoding: .utf8)
    }

    /// Builds a library whose C11 `cnd_timedwait` waits with `pthread_cond_timedwait`, whose deadline libfaketime converts
    /// to the real clock; returns its path.
    private static func conditionShim(in directory: String) throws -> String {
        let source = directory + "/condition-shim.c"
        let library = directory + "/condition-shim.so"
        try """
        #include <errno.h>
        #include <pthread.h>
        #include <threads.h>
        int cnd_timedwait(cnd_t *restrict cond, mtx_t *restrict mutex, const struct timespec *restrict deadline) {
            int error = pthread_cond_timedwait((pthread_cond_t *)cond, (pthread_mutex_t *)mutex, deadline);
            return error == 0 ? thrd_success : error == ETIMEDOUT ? thrd_timedout : thrd_error;
        }
        """.write(toFile: source, atomically: true, encoding: .utf8)
        let (status, output) = try ChildProcess.run("/usr/bin/env", ["clang", "-shared", "-fPIC", "-O2", "-o", library, source],
                                                    errors: .standardOutput)
        guard status == 0 else { throw InstallationError("could not build the clock's condition shim with clang: \(output)") }
        return library
    }
}
