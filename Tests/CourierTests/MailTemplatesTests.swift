@testable import Courier
import Domain
import Foundation
import Support
@testable import TestSupport
import Testing

/// Mails come from template files by locale: the built-in English and Simplified Chinese sets render every letter,
/// an operator's directory overrides or adds to them, and every flaw is found by `check`, before anything is sent.
@Suite(.tags(.unit)) struct MailTemplatesTests {
    static let code = Letter("login_code", kind: "code", values: ["code", "recoveryCode", "digitsDisabled", "minutes", "oneMinute"])
    static let emailChanged = Letter("email_changed", kind: "notice", values: ["newEmail"])
    static let settings = MailSettings(product: "Chat & Go", support: "help@chat.example")

    @Test func theBuiltInSetHasEveryLetterInEnglishAndSimplifiedChinese() throws {
        let letters = Set(MailTemplates.builtInFiles.keys.map { $0.split(separator: "/")[1] })
        #expect(MailTemplates.builtIn.locales == ["en", "zh-Hans"])
        for locale in ["en", "zh-Hans"] {
            for letter in letters {
                for part in MailTemplates.parts {
                    #expect(MailTemplates.builtInFiles["\(locale)/\(letter)/\(part)"] != nil, "\(locale)/\(letter)/\(part)")
                }
            }
        }
    }

    @Test func aLetterIsWrittenInTheLanguageTheRequestPrefers() throws {
        let values = ["code": "123456", "minutes": "10"]
        let english = try Self.settings.message(Self.code, values: values, locale: nil, to: "ada@example.com", requestId: "r-1", date: Date())
        #expect(english.subject == "Your Chat & Go code" && english.text.contains("Your code to sign in is: 123456"))
        #expect(english.text.contains("10 minutes") && english.messageId == "code.r-1@registrar.local")
        #expect(english.html.contains("Chat &amp; Go") && !english.html.contains("Chat & Go"), "values are escaped in HTML")
        #expect(!english.subject.contains("123456"), "the code is never in the subject")
        for locale in ["zh-CN", "zh", "zh-Hans-CN", "fr, zh-SG;q=0.5", "zh-CN,en"] {
            let chinese = try Self.settings.message(Self.code, values: values, locale: locale, to: "ada@example.com", requestId: "r-1", date: Date())
            #expect(chinese.subject == "您的Chat & Go验证码" && chinese.text.contains("123456"), "\(locale)")
        }
        for locale in ["fr", "zh-TW", "en-GB", "de, fr"] {
            let other = try Self.settings.message(Self.code, values: values, locale: locale, to: "ada@example.com", requestId: "r-1", date: Date())
            #expect(other.subject == "Your Chat & Go code", "\(locale)")
        }
        let one = try Self.settings.message(Self.code, values: ["code": "1", "minutes": "1", "oneMinute": "1"], locale: "en", to: "a@b.c",
                                            requestId: "r", date: Date())
        #expect(one.text.contains("1 minute and"))
    }

    @Test func localesAreLookedUpAsRFC4647Says() {
        let available: Set<String> = ["en", "zh-Hans", "pt"]
        #expect(MailLocale.select("zh-Hans-CN-x-private", from: available) == "zh-Hans")
        #expect(MailLocale.select("ZH-cn", from: available) == "zh-Hans")
        #expect(MailLocale.select("zh-Hant-TW, pt-BR", from: available) == "pt")
        #expect(MailLocale.select(nil, from: available) == "en")
        #expect(MailLocale.priorityList(acceptLanguage: "en;q=0.3, zh-CN, *;q=0.1, fr;q=0") == "zh-CN,en")
        #expect(MailLocale.priorityList(acceptLanguage: "da, en-gb;q=0.8, en;q=0.7") == "da,en-gb,en")
        #expect(MailLocale.priorityList(acceptLanguage: "*") == nil)
        #expect(MailLocale.priorityList(acceptLanguage: "<script>") == nil)
        #expect(MailLocale.problem(in: "zh-CN, en") == nil)
        #expect(MailLocale.problem(in: "zh_CN") != nil && MailLocale.problem(in: "") != nil && MailLocale.problem(in: "en,,fr") != nil)
        #expect(MailLocale.problem(in: String(repeating: "en,", count: 40) + "en") != nil)
    }

    @Test func aTemplateFlawIsNamedWithItsLine() {
        let names: Set<String> = ["code", "product"]
        let cases: [(String, String)] = [
            ("Hello\n{{nmae}}", "line 2: unknown name \"nmae\" (this letter has: code, product)"),
            ("Hello {{code", "line 1: \"{{\" is never closed"),
            ("a\nb\n{{#code}}x", "line 3: section \"code\" is never closed"),
            ("{{#code}}x{{/product}}", "line 1: \"{{/product}}\" closes no open \"{{#product}}\" or \"{{^product}}\""),
            ("{{}}", "line 1: an empty tag"),
        ]
        for (source, problem) in cases {
            #expect(throws: MailTemplate.Flaw.self) { try MailTemplate(parsing: source, names: names) }
            do {
                _ = try MailTemplate(parsing: source, names: names)
            } catch {
                #expect(error.description == problem)
            }
        }
        let sections = try? MailTemplate(parsing: "{{#code}}[{{ code }}]{{/code}}{{^code}}none{{/code}}", names: names)
        #expect(sections?.render(["code": "7"]) { $0 } == "[7]" && sections?.render([:]) { $0 } == "none")
    }

    @Test func anOperatorsDirectoryOverridesAndAddsLocales() throws {
        try withTemporaryDirectory { directory in
            try Self.write(directory, "en/login_code/subject.txt", "{{product}}: sign-in code\n")
            for (part, text) in [("subject.txt", "Votre code {{product}}"), ("body.txt", "Code : {{code}}"), ("body.html", "<p>{{code}}</p>")] {
                try Self.write(directory, "fr/login_code/\(part)", text)
            }
            let templates = try MailTemplates(overriding: directory)
            try templates.check([Self.code, Self.emailChanged])
            #expect(templates.locales == ["en", "fr", "zh-Hans"])
            let settings = MailSettings(product: "Chat", templates: templates)
            let english = try settings.message(Self.code, values: ["code": "1"], locale: "en", to: "a@b.c", requestId: "r", date: Date())
            #expect(english.subject == "Chat: sign-in code" && english.text.contains("Your code to sign in is: 1"), "the other parts stay built in")
            let french = try settings.message(Self.code, values: ["code": "1"], locale: "fr-CA", to: "a@b.c", requestId: "r", date: Date())
            #expect(french.subject == "Votre code Chat" && french.text == "Code : 1")
            // A letter the new locale lacks is mailed in English.
            let notice = try settings.message(Self.emailChanged, values: ["newEmail": "n@b.c"], locale: "fr", to: "a@b.c", requestId: "r", date: Date())
            #expect(notice.subject == "Your Chat email address was changed")
        }
    }

    @Test func everyFlawOfAnOverrideIsFoundBeforeAnythingIsSent() throws {
        try withTemporaryDirectory { directory in
            try Self.write(directory, "en/login_code/body.txt", "Your code: {{cdoe}}")
            try Self.write(directory, "en/login_code/subject.txt", "{{#code}}Your code{{/code}}")
            try Self.write(directory, "fr/login_code/subject.txt", "Votre code")
            try Self.write(directory, "de/email_changed/body.html", "<p>{{newEmail}</p>")
            let templates = try MailTemplates(overriding: directory)
            let problems = try #require(throws: TemplateProblems.self) { try templates.check([Self.code, Self.emailChanged]) }.problems
            #expect(problems.contains("\(directory)/en/login_code/body.txt: line 1: unknown name \"cdoe\" (this letter has: code, digitsDisabled, email, minutes, oneMinute, product, recoveryCode, support)"))
            #expect(problems.contains("\(directory)/en/login_code/subject.txt: the subject must render as one line of text"))
            #expect(problems.contains("\(directory)/fr/login_code/body.txt: missing") && problems.contains("\(directory)/fr/login_code/body.html: missing"))
            #expect(problems.contains("\(directory)/de/email_changed/subject.txt: missing"))
            #expect(problems.count == 6, "\(problems)")

            try Self.write(directory, "en/welcome_letter/body.txt", "x")
            try Self.write(directory, "en/login_code/body.md", "x")
            let unknown = try #require(throws: TemplateProblems.self) { try MailTemplates(overriding: directory) }.problems
            #expect(unknown.count == 2 && unknown.allSatisfy { $0.contains(": not a template (expected <locale>/<letter>/") })
        }
        #expect(throws: TemplateProblems(["/nonexistent/templates: no such directory"])) { try MailTemplates(overriding: "/nonexistent/templates") }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
    func aChineseLetterIsAMultipartAlternativeMessage() throws {
        let message = try Self.settings.message(Self.emailChanged, values: ["newEmail": "new@example.com"], locale: "zh-CN",
                                                to: "ada@example.com", requestId: "r-2", date: Date(timeIntervalSince1970: 0))
        let script = """
            import email, email.policy, sys
            m = email.message_from_bytes(sys.stdin.buffer.read(), policy=email.policy.strict)
            assert m.get_content_type() == 'multipart/alternative' and not m.defects
            print(m['Subject'])
            for part in m.iter_parts():
                print(part.get_content_type(), '您的Chat & Go账户现在使用 new@example.com 登录' in part.get_content()
                      or '您的Chat &amp; Go账户现在使用 <b>new@example.com</b> 登录' in part.get_content())
            """
        let (status, output) = try ChildProcess.run("/usr/bin/python3", ["-c", script], input: Array(message.rendered.utf8))
        #expect(status == 0)
        #expect(output.split(separator: "\n") == ["您的Chat & Go邮箱地址已更改", "text/plain True", "text/html True"])
    }

    static func write(_ directory: String, _ path: String, _ text: String) throws {
        let file = directory + "/" + path
        try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: file, atomically: true, encoding: .utf8)
    }
}
