import Backends
import Courier
import Domain
import Support
import Verification

/// The code dispatch worker: one-time codes by email, within the resend limits, each request answered once (the
/// answers kept for their retention, then forgotten by its periodic sweep). Its stack: `CodeDispatchAssembly`.
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
}
