import Backends
import Courier
import CryptoAdapters
import Domain
import Foundation
import Support
import Verification

/// The code dispatch worker: one-time codes by email, within the resend limits, each request answered once (the
/// answers kept for their retention, then forgotten by its periodic sweep).
public enum CodeDispatchWorker: WorkerKind, HoldsFlowKeys {
    static let flowKeys = [WorkerKeys.codeSecret]
    public static let role = WorkerRole.codeDispatch
    public static let summary = "send one-time codes by email, within the resend limits"
    public static let steps: [any EventHandler.Type] = [AnswerOnce<CodeDispatchStep>.self]
    public static let letters = CodeDispatchStep.letters
    public static let options = BackendOptions.accountsSpecs + BackendOptions.mailSpecs + WorkerKeys.specs(flowKeys) + [
        .value("code-ttl", "Seconds a code stays valid", environment: "REGISTRAR_CODE_TTL", default: "600"),
        .value("code-cooldown", "Seconds between two codes for one email and purpose", environment: "REGISTRAR_CODE_COOLDOWN", default: "60"),
        .value("code-hourly-limit", "Codes per email and purpose in any hour", environment: "REGISTRAR_CODE_HOURLY_LIMIT", default: "5"),
        AnswerRetention.option,
    ] + MailOptions.specs

    public static func stack(_ parsed: ParsedArguments, dataDirectory: String,
                             clock: @escaping @Sendable () -> Date) throws -> WorkerStack {
        let policy = CodePolicy(lifetime: Double(try parsed.integer("code-ttl") ?? 600),
                                cooldown: Double(try parsed.integer("code-cooldown") ?? 60),
                                hourlyLimit: try parsed.integer("code-hourly-limit") ?? 5)
        let stores = BackendOptions(parsed, dataDirectory: dataDirectory)
        let secrets = HMACCodeSecrets(authenticator: try WorkerKeys(parsed, stores: stores).codeSecret())
        let mailer = try stores.mailer()
        try mailer.probe()
        let step = CodeDispatchStep(codes: try stores.codeStore(), secrets: secrets,
                                    mailer: MeteredMailer(mailer: mailer), mail: try MailOptions.settings(parsed, letters: letters),
                                    rules: CodeRules(policy: policy), clock: clock)
        let answers = try stores.answerMemo(of: name, clock: clock)
        let retention = try AnswerRetention.seconds(parsed)
        let answered = AnswerOnce(step, memo: answers, afterCommit: { try step.deliver($0) })
        // The periodic sweep forgets answers older than their retention.
        return WorkerStack(name: name, routing: RoutingTable([answered]), periodic: {
            _ = try answers.forget(answeredBefore: clock().addingTimeInterval(-retention))
            return []
        })
    }
}
