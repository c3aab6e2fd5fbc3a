import Courier
import Domain
import Foundation
import SMTPCourier
@testable import TestSupport
import Testing

/// `SMTPMailer` against a real SMTP server (aiosmtpd) started by each test.
@Suite(.tags(.production)) struct SMTPMailerTests {
    @Test func deliversBothPartsWithTheCode() throws {
        let server = try SMTPServer()
        let code = String(format: "%06d", Int.random(in: 0..<1_000_000))
        try mailer(for: server).send(letter(code: code, requestId: "r1"))

        let received = try #require(try server.messages().first)
        #expect(received.contains("From: Registrar <no-reply@registrar.local>"))
        #expect(received.contains("To: ada@example.com"))
        #expect(received.contains("Subject: Your code"))
        #expect(received.contains("Message-ID: <code.r1@registrar.local>"))
        #expect(received.contains("Content-Type: text/plain; charset=utf-8"))
        #expect(received.contains("Content-Type: text/html; charset=utf-8"))
        #expect(Self.code(in: received) == code)
    }

    @Test(arguments: [(SMTPServer.Encryption.startTLS, "smtp"), (.implicitTLS, "smtps")])
    func deliversOverTLS(_ encryption: SMTPServer.Encryption, scheme: String) throws {
        let server = try SMTPServer(encryption: encryption)
        let mailer = SMTPMailer(try SMTPConfiguration(url: "\(scheme)://127.0.0.1:\(server.port)?ca-file=\(server.certificate)&timeout=10"))
        try mailer.send(letter(code: "555555", requestId: "r6"))
        #expect(try server.messages().first.flatMap(Self.code(in:)) == "555555")
    }

    @Test func logsInWithAUTHAndMailWithoutLoginIsRefusedForGood() throws {
        let server = try SMTPServer(requiringLogin: (user: "courier", password: "s3cret pass"))
        let base = "127.0.0.1:\(server.port)?tls=none&timeout=10"
        try SMTPMailer(try SMTPConfiguration(url: "smtp://courier:s3cret%20pass@" + base)).send(letter(code: "777777", requestId: "r7"))
        #expect(try server.messages().first.flatMap(Self.code(in:)) == "777777")

        let anonymous = try #require(throws: StoreError.self) {
            try SMTPMailer(try SMTPConfiguration(url: "smtp://" + base)).send(letter(code: "999999", requestId: "r9"))
        }
        #expect(anonymous.kind == .permanent, "\(anonymous.message)")
        #expect(try server.messages().count == 1)
    }

    @Test func aStoppedServerIsTransientAndRecovers() throws {
        let server = try SMTPServer()
        server.stop()
        let failure = try #require(throws: StoreError.self) { try mailer(for: server).send(letter(code: "111111", requestId: "r2")) }
        #expect(failure.kind == .transient)
        #expect(failure.message.contains("deferred"))

        try server.start()
        try mailer(for: server).send(letter(code: "111111", requestId: "r2"))
        #expect(try server.messages().count == 1)
    }

    @Test func aTemporaryRejectionIsTransientAndTheSendGoesThroughOnceItEnds() throws {
        let server = try SMTPServer()
        _ = FileManager.default.createFile(atPath: server.deferralFlag, contents: nil)
        let failure = try #require(throws: StoreError.self) { try mailer(for: server).send(letter(code: "222222", requestId: "r3")) }
        #expect(failure.kind == .transient)
        #expect(try server.messages().isEmpty)

        try FileManager.default.removeItem(atPath: server.deferralFlag)
        try mailer(for: server).send(letter(code: "222222", requestId: "r3"))
        #expect(try server.messages().count == 1)
    }

    @Test func aPermanentRejectionIsAbandoned() throws {
        let server = try SMTPServer(rejecting: "550 5.1.1 no such mailbox")
        let failure = try #require(throws: StoreError.self) { try mailer(for: server).send(letter(code: "333333", requestId: "r4")) }
        #expect(failure.kind == .permanent)
        #expect(failure.message.contains("abandoned"))
        #expect(try server.messages().isEmpty)
    }

    @Test func requiredSTARTTLSThatTheServerLacksIsPermanent() throws {
        let server = try SMTPServer()
        let mailer = SMTPMailer(try SMTPConfiguration(url: "smtp://127.0.0.1:\(server.port)?tls=starttls&timeout=10"))
        let failure = try #require(throws: StoreError.self) { try mailer.send(letter(code: "444444", requestId: "r5")) }
        #expect(failure.kind == .permanent)
        #expect(try server.messages().isEmpty)
    }

    private func mailer(for server: SMTPServer) throws -> SMTPMailer {
        SMTPMailer(try SMTPConfiguration(url: "smtp://127.0.0.1:\(server.port)?tls=none&connect-timeout=2&timeout=10"))
    }

    private func letter(code: String, requestId: String) -> EmailMessage {
        EmailMessage(from: MailSettings().from, to: "ada@example.com", subject: "Your code", text: "Your code is \(code).",
                     html: "<p>Your code is <b>\(code)</b>.</p>", messageId: "code.\(requestId)@registrar.local", date: Date())
    }

    /// The first six-digit number in the plain-text part.
    private static func code(in message: String) -> String? {
        guard let plain = message.range(of: "text/plain") else { return nil }
        return message[plain.upperBound...].firstMatch(of: /\d{6}/).map { String($0.output) }
    }
}
