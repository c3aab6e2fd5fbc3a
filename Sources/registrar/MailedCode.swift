import Domain
import Foundation
import RegistrarClient
import Support

extension RegistrarClient {
    /// The code mailed to `email` for `purpose`, read like every secret (never from argv): from `--code-file` when given
    /// (a code asked for before, e.g. with `registrar code request`), else a code is requested now and read from the next
    /// line of standard input, or prompted for on the terminal. An outstanding code is mailed again rather than replaced,
    /// so a request refused in its cooldown still reads the code mailed a moment ago.
    func mailedCode(_ purpose: CodePurpose, email: String, parsed: ParsedArguments, timeout: Duration) async throws -> String {
        if parsed.value(Secret.code.name + "-file") == nil {
            // In the language the command's `--locale` asks for, when it has one.
            let request = CodeRequested(requestId: UUID().uuidString.lowercased(), email: email, purpose: purpose, locale: parsed.value("locale"))
            switch try await send(.codeRequested(request), timeout: timeout) {
            case .codeSent:
                note("a \(purpose.rawValue) code was sent to \(email)")
            case .codeRefused(let refused) where refused.reason == .codeRateLimited:
                note("a \(purpose.rawValue) code was sent to \(email) a moment ago: \(refused.message)")
            case .codeRefused(let refused):
                throw UsageError.invalid("no \(purpose.rawValue) code could be sent to \(email): \(refused.reason.rawValue) — \(refused.message)", "")
            case let other:
                throw UnexpectedOutcome(type: other.type)
            }
        }
        return try Secret.read(Secret.code, from: parsed)[0]
    }

    /// Tells the person at the terminal (standard error: standard output carries the command's result).
    private func note(_ text: String) {
        try? FileHandle.standardError.write(contentsOf: Data("\(text)\n".utf8))
    }
}
