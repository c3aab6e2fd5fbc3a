import Courier
import Foundation
import Support
import WorkerAssembly

/// `registrar templates check|export|preview`: the mail templates an operator overrides (`--mail-templates`).
enum TemplatesCommand {
    static func run(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.dispatch(tool: "registrar templates", summary: "mail templates", arguments, to: [
            .init("check", "Check that every letter renders in every locale of the built-in and overriding templates", run: check),
            .init("export", "Write the built-in templates to a directory, to start an override from", run: export),
            .init("preview", "Print one letter as it would be mailed, with sample values", run: preview),
        ])
    }

    static let checkSpec = CommandSpec(name: "registrar templates check", summary: "check the mail templates the workers would load",
                                       usage: "[--mail-templates DIR]", options: MailOptions.specs)

    static func check(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: checkSpec) { parsed in
            let settings = try MailOptions.settings(parsed, letters: MailOptions.letters)
            print("\(MailOptions.letters.count) letters render in \(settings.templates.locales.sorted().joined(separator: ", "))")
            return .success
        }
    }

    static let exportSpec = CommandSpec(name: "registrar templates export", summary: "write the built-in mail templates to a directory",
                                        usage: "--output DIR", options: [.value("output", "Directory to write (its files are not overwritten)")])

    static func export(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: exportSpec) { parsed in
            let root = try parsed.required("output")
            for (path, text) in MailTemplates.builtInFiles.sorted(by: { $0.key < $1.key }) {
                let file = root + "/" + path
                guard !FileManager.default.fileExists(atPath: file) else { throw CommandFailure("\(file) exists; not overwritten") }
                try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try Data(text.utf8).write(to: URL(fileURLWithPath: file))
            }
            print("wrote \(MailTemplates.builtInFiles.count) templates to \(root)")
            return .success
        }
    }

    static let previewSpec = CommandSpec(
        name: "registrar templates preview", summary: "print a letter as it would be mailed, with sample values",
        usage: "--letter NAME [--locale L] [--mail-templates DIR]",
        options: [.value("letter", "The letter, e.g. login_code"), .value("locale", "The request's locale, e.g. zh-CN")] + MailOptions.specs)

    static func preview(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: previewSpec) { parsed in
            let name = try parsed.required("letter")
            guard let letter = MailOptions.letters.first(where: { $0.name == name }) else {
                throw UsageError.invalid("no letter \(name); letters: \(MailOptions.letters.map(\.name).sorted().joined(separator: ", "))",
                                         previewSpec.helpText)
            }
            let settings = try MailOptions.settings(parsed, letters: [letter])
            let samples = ["code": "123456", "recoveryCode": "ABCDE-FGH23-JKL45-MNP67", "digitsDisabled": "", "minutes": "10", "oneMinute": "",
                           "newEmail": "new@example.com"]
            let values = Dictionary(uniqueKeysWithValues: letter.values.map { ($0, samples[$0] ?? "[\($0)]") })
            let message = try settings.message(letter, values: values, locale: parsed.value("locale"), to: "user@example.com",
                                               requestId: "preview", date: Date())
            print(message.rendered.replacingOccurrences(of: "\r\n", with: "\n"), terminator: "")
            return .success
        }
    }
}
