import Foundation
import Support

/// A throw-away SMTP server: Debian's `python3-aiosmtpd` on a free port of 127.0.0.1, storing each
/// message it accepts as a file in the Maildir `directory/new`; stopped when released or when the
/// process exits. With `rejecting`, it answers every recipient with that reply (e.g. `550 …`) instead.
/// While the file `deferralFlag` exists, it answers every recipient `451` (try again later), so that a
/// test, or a fault command of another process, can make sends fail for a while.
/// With TLS, it presents a self-signed certificate for 127.0.0.1, `certificate`.
public final class SMTPServer: @unchecked Sendable {
    /// How clients reach the server.
    public enum Encryption: Sendable {
        case none, startTLS, implicitTLS
    }

    public let port: Int
    /// The Maildir (and, when rejecting, the handler module's directory).
    public let directory: String
    private let rejection: String?
    private let encryption: Encryption
    private let login: (user: String, password: String)?
    private let server = ServerProcess()

    /// While this file exists, the server defers every recipient with `451 4.3.0`.
    public var deferralFlag: String { directory + "/defer" }

    /// The PEM certificate the server presents with TLS, which clients are to trust.
    public var certificate: String { directory + "/certificate.pem" }

    /// With `requiringLogin`, the server accepts mail only after AUTH with that user and password.
    public init(rejecting rejection: String? = nil, encryption: Encryption = .none,
                requiringLogin login: (user: String, password: String)? = nil) throws {
        port = try freePort()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("smtp-\(UUID().uuidString)").path
        self.rejection = rejection
        self.encryption = encryption
        self.login = login
        // Python's `mailbox.Maildir` only makes its subdirectories when the directory itself is new.
        for subdirectory in ["cur", "new", "tmp"] {
            try FileManager.default.createDirectory(atPath: "\(directory)/\(subdirectory)", withIntermediateDirectories: true)
        }
        if let rejection {
            let handler = "class Rejecting:\n    async def handle_RCPT(self, server, session, envelope, address, options):\n"
                + "        return \(Self.pythonString(rejection))\n"
            try handler.write(toFile: directory + "/rejecting.py", atomically: true, encoding: .utf8)
        }
        let deferring = """
            import os
            from aiosmtpd.handlers import Mailbox
            class Deferring(Mailbox):
                async def handle_RCPT(self, server, session, envelope, address, options):
                    if os.path.exists(\(Self.pythonString(deferralFlag))):
                        return '451 4.3.0 Deferred: try again later'
                    envelope.rcpt_tos.append(address)
                    return '250 OK'
            """
        try deferring.write(toFile: directory + "/deferring.py", atomically: true, encoding: .utf8)
        if encryption != .none {
            try runCommand("/usr/bin/openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                                                "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", directory + "/key.pem",
                                                "-out", certificate])
        }
        try start()
        stopAtExit(self) { [weak self] in self?.stop() }
    }

    deinit {
        forgetAtExit(self)
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Starts the server (again, after `stop()`) on the same port, keeping the messages received so far.
    public func start() throws {
        if let login { return try startRequiringLogin(login) }
        let handler = rejection == nil ? ["deferring.Deferring", directory] : ["rejecting.Rejecting"]
        // `-c` so the handler module in `directory` can be imported; the arguments follow as aiosmtpd's own.
        let program = "import sys; sys.path.insert(0, \(Self.pythonString(directory))); from aiosmtpd.main import main; main()"
        let tls = switch encryption {
        case .none: [String]()
        case .startTLS: ["--tlscert", certificate, "--tlskey", directory + "/key.pem"]
        case .implicitTLS: ["--smtpscert", certificate, "--smtpskey", directory + "/key.pem"]
        }
        let process = try ChildProcess("/usr/bin/python3", ["-c", program, "-n", "-l", "127.0.0.1:\(port)"] + tls + ["-c"] + handler,
                                       output: .file(directory + "/server.log"), errors: .standardOutput)
        server.run(process)
        try waitUntilListening(on: port)
    }

    /// aiosmtpd's command line cannot ask for AUTH: a small program runs its controller with an authenticator.
    private func startRequiringLogin(_ login: (user: String, password: String)) throws {
        let program = """
            import time
            from aiosmtpd.controller import Controller
            from aiosmtpd.handlers import Mailbox
            from aiosmtpd.smtp import AuthResult
            def authenticate(server, session, envelope, mechanism, data):
                return AuthResult(success=data.login == \(Self.pythonString(login.user)).encode() and data.password == \(Self.pythonString(login.password)).encode())
            Controller(Mailbox(\(Self.pythonString(directory))), hostname="127.0.0.1", port=\(port), authenticator=authenticate,
                       auth_required=True, auth_require_tls=False).start()
            while True:
                time.sleep(3600)
            """
        let process = try ChildProcess("/usr/bin/python3", ["-c", program], output: .file(directory + "/server.log"), errors: .standardOutput)
        server.run(process)
        try waitUntilListening(on: port)
    }

    /// Stops the server and waits until it has exited.
    public func stop() { server.stop() }

    /// The messages received so far, as the server stored them, oldest first.
    public func messages() throws -> [String] {
        let inbox = directory + "/new"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: inbox)) ?? []
        let paths = names.map { inbox + "/" + $0 }
        let dated = try paths.map { path in
            (path, try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date ?? .distantPast)
        }
        return try dated.sorted { $0.1 < $1.1 }.map { try String(contentsOfFile: $0.0, encoding: .utf8) }
    }

    private static func pythonString(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }
}
