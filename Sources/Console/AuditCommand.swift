import Accounts
import Backends
import Domain
import EventTransport
import S3Store
import SQLStores
import Support

/// `registrar audit`: checks every store for half-registered users and counts the accounts by state (naming the disabled
/// ones); exits 1 when it finds any half-registered user, 2 when a store it was pointed at does not exist (a mistyped
/// `--data-dir` is not an all-clear).
public enum AuditCommand {
    public static let spec = CommandSpec(
        name: "registrar audit", summary: "check every store for half-registered users", usage: "[--json] [options]",
        options: [graceOption, ConnectionOptions.specs[1], JSONOutput.option] + BackendOptions.specs)

    /// `--grace`: how long a registration may be in flight before it counts (as half-registered, or stuck).
    public static let graceOption = CommandSpec.Option.value("grace", "Seconds a registration may be in flight before it counts", default: "300")

    /// The audit of the stores `parsed` names, which must exist (a `CommandFailure` with exit code 2 otherwise).
    public static func audit(_ parsed: ParsedArguments) throws -> RegistrationAudit {
        let backends = BackendOptions(parsed, dataDirectory: parsed.value("data-dir") ?? "data")
        let missing = try backends.missingStores()
        guard missing.isEmpty else { throw CommandFailure(missing.joined(separator: "; "), exitCode: .usage) }
        return RegistrationAudit(accounts: try backends.accountStore(), profiles: try backends.profileStore(),
                                 images: try backends.objectStore())
    }

    /// How long a registration may be in flight before it counts (`--grace`).
    public static func grace(_ parsed: ParsedArguments) throws -> Duration { .seconds(try parsed.integer("grace") ?? 300) }

    public static func run(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: spec) { parsed in
            let report = try audit(parsed).report(grace: try grace(parsed))
            let findings = report.findings
            if parsed.flag("json") {
                JSONOutput.print(["count": findings.count, "findings": findings.map {
                    ["kind": $0.kind.rawValue, "subject": $0.subject, "detail": $0.detail]
                }, "accounts": Dictionary(uniqueKeysWithValues: report.accountsByState.map { ($0.key.rawValue, $0.value) }),
                   "disabled": report.disabled])
            } else {
                findings.forEach { print($0) }
                print(report.census + (report.disabled.isEmpty ? "" : "; disabled: " + report.disabled.joined(separator: " ")))
                print("audit: \(findings.count) finding\(findings.count == 1 ? "" : "s")")
            }
            return findings.isEmpty ? .success : .failure
        }
    }
}
