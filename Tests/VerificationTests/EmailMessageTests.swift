import Courier
import Foundation
import Support
@testable import TestSupport
import Testing

/// Rendered emails are RFC 5322 messages with text and HTML alternatives, checked by Python's parser.
@Suite(.tags(.unit)) struct EmailMessageTests {
    let message = EmailMessage(
        from: "Registrar <no-reply@registrar.local>", to: "zoe@example.com", subject: "Ihr Code: 123456 – gültig",
        text: "Your code is: 123456\n" + String(repeating: "long line with ünïcödé and = signs ", count: 5) + "\nend ",
        html: "<p style=\"x\">123456</p>", messageId: "code.r1@registrar.local", date: Date(timeIntervalSince1970: 0))

    @Test func headersAndPartsAreThere() {
        let text = message.rendered
        #expect(text.hasPrefix("Date: Thu, 01 Jan 1970 00:00:00 +0000\r\n"))
        for header in ["\r\nFrom: Registrar <no-reply@registrar.local>\r\n", "\r\nMessage-ID: <code.r1@registrar.local>\r\n",
                       "\r\nMIME-Version: 1.0\r\n", "\r\nSubject: =?UTF-8?B?", "multipart/alternative; boundary="] {
            #expect(text.contains(header), "missing \(header)")
        }
        #expect(text.utf8.allSatisfy { $0 < 0x80 })
        #expect(text.components(separatedBy: "\r\n").allSatisfy { $0.utf8.count <= 78 })
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
    func pythonParsesBothAlternativesBack() throws {
        let script = """
            import email, email.policy, sys
            m = email.message_from_bytes(sys.stdin.buffer.read(), policy=email.policy.strict)
            assert m.get_content_type() == 'multipart/alternative', m.get_content_type()
            assert not m.defects, m.defects
            print(m['Subject'])
            for part in m.iter_parts():
                assert not part.defects, part.defects
                print(part.get_content_type(), repr(part.get_content().replace('\\r\\n', '\\n')))
            """
        let (status, result) = try ChildProcess.run("/usr/bin/python3", ["-c", script], input: Array(message.rendered.utf8))
        #expect(status == 0)
        let lines = result.split(separator: "\n").map(String.init)
        #expect(lines.first == message.subject)
        #expect(lines.dropFirst().first == "text/plain \(String(reflecting: message.text).replacingOccurrences(of: "\"", with: "'"))")
        #expect(lines.last == "text/html '<p style=\"x\">123456</p>'")
    }
}
