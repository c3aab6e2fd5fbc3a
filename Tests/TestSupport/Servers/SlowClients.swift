import Foundation
import Support

/// Hostile HTTP clients on raw sockets (a Python process): `count` connections from a local `source` address, each
/// sending `script` and then one byte of `trickle` every 300 ms (or nothing more), reporting each connection the
/// server closes. For the deadline, connection-limit and body-budget tests.
public final class SlowClients: @unchecked Sendable {
    // `closed` is read and written only by the awaiting test, one call at a time.
    private let process: ChildProcess
    private let count: Int
    private var closed = Set<Int>()

    private static let program = #"""
import select, socket, sys, time
port, count, source, script, trickle = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4].encode(), sys.argv[5].encode()
socks = []
for i in range(count):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind((source, 0))
    s.connect(("127.0.0.1", port))
    try:
        s.sendall(script)
    except OSError:
        pass
    socks.append(s)
print("open", flush=True)
alive = set(range(count))
while alive:
    ready, _, _ = select.select([socks[i] for i in alive], [], [], 0.3)
    for s in ready:
        i = socks.index(s)
        try:
            data = s.recv(65536)
        except OSError:
            data = b""
        if not data:
            alive.discard(i)
            print("closed", i, flush=True)
    if trickle:
        for i in list(alive):
            try:
                socks[i].send(trickle)
            except OSError:
                alive.discard(i)
                print("closed", i, flush=True)
"""#

    /// Opens the connections and returns once they are open and have sent `script`.
    public static func start(port: Int, count: Int, source: String, script: String, trickle: String?) async throws -> SlowClients {
        let process = try ChildProcess("/usr/bin/python3", ["-c", program, String(port), String(count), source, script, trickle ?? ""],
                                       errors: .discarded)
        guard await process.nextLine() == "open" else {
            process.send(SIGKILL)
            throw TestServerError("the slow clients did not connect to port \(port)")
        }
        return SlowClients(process: process, count: count)
    }

    private init(process: ChildProcess, count: Int) {
        self.process = process
        self.count = count
    }

    /// Whether the server closed every connection within `limit`.
    public func waitUntilClosed(within limit: Duration) async throws -> Bool {
        try await closedCount(reaching: count, within: limit) == count
    }

    /// How many connections the server closed, once `target` are or `limit` passed.
    public func closedCount(reaching target: Int, within limit: Duration) async throws -> Int {
        let deadline = ContinuousClock.now + limit
        while closed.count < target, ContinuousClock.now < deadline {
            let line = try await withThrowingTaskGroup(of: String?.self) { group in
                group.addTask { await self.process.nextLine() }
                group.addTask { try await Task.sleep(for: deadline - .now); return nil }
                let first = try await group.next() ?? nil
                group.cancelAll()
                return first
            }
            guard let line else { break }
            if line.hasPrefix("closed "), let index = Int(line.dropFirst(7)) { closed.insert(index) }
        }
        return closed.count
    }

    /// Ends the client process (and so its connections).
    public func stop() {
        process.send(SIGKILL)
    }
}

/// A TLS handshake by `openssl s_client` with `options` (e.g. `-tls1_2 -cipher AES128-SHA`): a real client of
/// another TLS stack, offering only what the options allow.
public enum TLSHandshake {
    public struct Result: Sendable {
        public var succeeded: Bool
        /// What openssl printed of the session (protocol, cipher) or of the failure.
        public var summary: String
    }

    public static func attempt(port: Int, options: [String]) throws -> Result {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("s_client-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let status = try ChildProcess("/usr/bin/openssl", ["s_client", "-connect", "127.0.0.1:\(port)", "-brief"] + options,
                                      output: .file(output), errors: .standardOutput).waitUntilExit()
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        let lines = text.split(separator: "\n").filter { $0.contains("Protocol") || $0.contains("Cipher") || $0.contains("error") || $0.contains("alert") }
        return Result(succeeded: status == 0 && text.contains("CONNECTION ESTABLISHED"), summary: lines.joined(separator: "; "))
    }

    /// Headless Chromium (BoringSSL, the TLS stack of Android) loading `https://127.0.0.1:port/path`, the certificate's
    /// issuer not checked (the handshake still needs a key exchange and signature Chromium supports): the page it
    /// rendered, or why the load failed.
    public static func chromium(port: Int, path: String) throws -> Result {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: output); try? FileManager.default.removeItem(atPath: output + ".err") }
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-profile-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: profile) }
        let status = try ChildProcess("/usr/bin/chromium", ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                                            "--user-data-dir=" + profile, "--ignore-certificate-errors", "--dump-dom",
                                                            "https://127.0.0.1:\(port)\(path)"],
                                      output: .file(output), errors: .file(output + ".err")).waitUntilExit()
        let page = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        let failure = ((try? String(contentsOfFile: output + ".err", encoding: .utf8)) ?? "").split(separator: "\n")
            .first { $0.contains("Page load failed") }.map(String.init)
        return Result(succeeded: status == 0 && failure == nil && !page.isEmpty, summary: failure ?? page)
    }
}
