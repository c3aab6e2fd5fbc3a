import CodeDispatchAssembly
import Courier
import Foundation
import Support
@testable import TestSupport
import Testing
@testable import WorkerAssembly

/// A worker that mails checks its templates when it starts: a flaw stops the start, naming the file and the line,
/// instead of failing a send.
@Suite(.tags(.unit)) struct MailTemplatesAtStartTests {
    @Test func everyLetterOfEveryWorkerRendersInEveryBuiltInLocale() throws {
        #expect(Set(MailOptions.letters.map(\.name)) == Set(MailTemplates.builtInFiles.keys.map { String($0.split(separator: "/")[1]) }),
                "every built-in letter is mailed by some worker, and every mailed letter is built in")
        try MailTemplates.builtIn.check(MailOptions.letters)
    }

    @Test func aWorkerWithAFlawedTemplateRefusesToStart() throws {
        try withTemporaryDirectory { data in
            let templates = data + "/templates/zh-Hans/login_code"
            try FileManager.default.createDirectory(atPath: templates, withIntermediateDirectories: true)
            try "验证码：{{code}\n".write(toFile: templates + "/body.txt", atomically: true, encoding: .utf8)
            let parsed = try ParsedArguments(["--data-dir", data, "--mail-templates", data + "/templates"], spec: CodeDispatchWorker.spec,
                                             environment: [:])
            let failure = try #require(throws: CommandFailure.self) {
                try CodeDispatchWorker.stack(parsed, dataDirectory: data, clock: Date.init)
            }
            #expect(failure.message == "mail templates:\n  \(data)/templates/zh-Hans/login_code/body.txt: line 1: \"{{\" is never closed")
        }
    }
}
