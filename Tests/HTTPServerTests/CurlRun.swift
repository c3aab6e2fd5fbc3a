import Foundation
import Support

/// One `curl` run (a real HTTP client): the status it got, the header lines and the body.
struct CurlRun {
    var status: Int
    var headers: [String]
    var body: String

    /// Runs `curl` with `arguments` (the URL among them); status 0 when it got no answer.
    static func run(_ arguments: [String]) async throws -> CurlRun {
        let headerFile = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: headerFile) }
        let process = try ChildProcess("/usr/bin/curl", ["-sS", "--max-time", "20", "-D", headerFile, "-w", "\n%{http_code}"] + arguments,
                                       errors: .discarded)
        var lines: [String] = []
        while let line = await process.nextLine() { lines.append(line) }
        _ = await process.waitForExit()
        let status = lines.popLast().flatMap { Int($0) } ?? 0
        let headers = ((try? String(contentsOfFile: headerFile, encoding: .utf8)) ?? "")
            .split(separator: "\r\n").map(String.init)
        return CurlRun(status: status, headers: headers, body: lines.joined(separator: "\n"))
    }

    /// The value of the first header line named `name`.
    func header(_ name: String) -> String? {
        headers.first { $0.lowercased().hasPrefix(name.lowercased() + ":") }
            .map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces) }
    }
}
