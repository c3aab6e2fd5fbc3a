import Foundation
import Support

/// One `curl` run (a real HTTP client): the status it got, the header lines and the body.
public struct CurlRun: Sendable {
    public var status: Int
    public var headers: [String]
    public var body: String

    /// Runs `curl` with `arguments` (the URL among them); status 0 when it got no answer.
    public static func run(_ arguments: [String]) async throws -> CurlRun {
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
    public func header(_ name: String) -> String? {
        headers.first { $0.lowercased().hasPrefix(name.lowercased() + ":") }
            .map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces) }
    }
}

/// A self-signed certificate for 127.0.0.1 and its key, made by `openssl` in `directory`: (certificate, key) paths.
public func makeSelfSignedCertificate(in directory: String) throws -> (certificate: String, key: String) {
    let (certificate, key) = (directory + "/cert.pem", directory + "/key.pem")
    try runCommand("/usr/bin/openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
                                        "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", certificate])
    return (certificate, key)
}
