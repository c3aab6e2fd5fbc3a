#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A secret a command takes (a password, a code, a refresh token), e.g. `--new-password`: given with
/// `--<name>-file FILE`, else read by ``SecretInput``. `--<name> value` is refused, since argv is visible to
/// every user of the machine (`ps`, `/proc`) and kept in shell history; the refusal never repeats the value.
public struct SecretOption: Sendable {
    public var name: String
    /// What it is, for help and prompts, e.g. "new password".
    public var what: String

    public init(_ name: String, _ what: String) {
        self.name = name
        self.what = what
    }

    /// Its options: the file option, and the refused bare name.
    public var options: [CommandSpec.Option] {
        [.value(name + "-file", "File holding the \(what) (else one line of standard input, or a prompt without echo)"),
         .refused(name, "--\(name) is refused: a secret on the command line is visible to every user of the machine "
                  + "and kept in shell history; \(howToGive)")]
    }

    var howToGive: String { "give --\(name)-file FILE, a line on standard input, or type it at the prompt" }
}

/// Where a command reads its ``SecretOption``s, never from argv: each from its `--<name>-file` when given,
/// else one line of standard input each, in the command's order; on a terminal, a prompt with echo off.
public struct SecretInput {
    /// Whether standard input is a terminal (then secrets are prompted for).
    var isTerminal: Bool
    /// The next line of standard input without its newline, or nil at its end.
    var nextLine: () -> String?

    /// The process's standard input.
    public static var standard: SecretInput {
        SecretInput(isTerminal: isatty(STDIN_FILENO) == 1, nextLine: { readLine(strippingNewline: true) })
    }

    /// Reads from the given lines of input, as if piped.
    public init(lines: [String]) {
        var remaining = lines[...]
        self.init(isTerminal: false, nextLine: { remaining.popFirst() })
    }

    init(isTerminal: Bool, nextLine: @escaping () -> String?) {
        self.isTerminal = isTerminal
        self.nextLine = nextLine
    }

    /// The values of `secrets`, in order.
    public func read(_ secrets: [SecretOption], from parsed: ParsedArguments) throws(UsageError) -> [String] {
        var values: [String] = []
        for secret in secrets {
            if let path = parsed.value(secret.name + "-file") {
                values.append(try Self.file(path, option: secret.name + "-file"))
                continue
            }
            let line = isTerminal ? Self.prompt(secret.what) : nextLine()
            guard let line, !line.isEmpty else { throw .invalid("no \(secret.what): \(secret.howToGive)", "") }
            values.append(line)
        }
        return values
    }

    /// A secret file's content without its final line break.
    private static func file(_ path: String, option: String) throws(UsageError) -> String {
        guard let data = FileManager.default.contents(atPath: path) else { throw .invalid("cannot read --\(option) \(path)", "") }
        var text = String(decoding: data, as: UTF8.self)
        if text.hasSuffix("\n") { text.removeLast() }
        guard !text.isEmpty else { throw .invalid("--\(option) \(path) is empty", "") }
        return text
    }

    /// Turns the terminal's echo off, then asks for `what` on standard error and reads the answer. In that
    /// order: turning echo off discards what was typed before (`TCSAFLUSH`, as `getpass` does), so an answer
    /// typed after a prompt shown earlier would be echoed, then discarded, and the read would wait forever.
    private static func prompt(_ what: String) -> String? {
        var original = termios()
        let restorable = tcgetattr(STDIN_FILENO, &original) == 0
        if restorable {
            var silent = original
            silent.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent)
        }
        FileHandle.standardError.write(Data("\(what.prefix(1).uppercased() + what.dropFirst()): ".utf8))
        defer {
            if restorable { tcsetattr(STDIN_FILENO, TCSAFLUSH, &original) }
            FileHandle.standardError.write(Data("\n".utf8))
        }
        return readLine(strippingNewline: true)
    }
}
