import Backends
import Courier
import CryptoAdapters
import Domain
import Support
import Verification
import WorkerRuntime

let spec = CommandSpec(
    name: "code-dispatch-worker", summary: "send one-time codes by email, within the resend limits",
    options: ConnectionOptions.specs + BackendOptions.accountsSpecs + BackendOptions.mailSpecs + [
        .value("code-ttl", "Seconds a code stays valid", environment: "REGISTRAR_CODE_TTL", default: "600"),
        .value("code-cooldown", "Seconds between two codes for one email and purpose", environment: "REGISTRAR_CODE_COOLDOWN", default: "60"),
        .value("code-hourly-limit", "Codes per email and purpose in any hour", environment: "REGISTRAR_CODE_HOURLY_LIMIT", default: "5"),
        .value("mail-from", "Sender of code emails", environment: "REGISTRAR_MAIL_FROM", default: MailSettings().from),
    ])

await CommandLineTool.exit {
    await CommandLineTool.run(Array(CommandLine.arguments.dropFirst()), spec: spec) { parsed in
        let shutdown = ShutdownSignal()
        let connection = try ConnectionOptions(parsed)
        let backends = EmbeddedBackends(connection.dataDirectory)
        let policy = CodePolicy(lifetime: Double(try parsed.integer("code-ttl") ?? 600),
                                cooldown: Double(try parsed.integer("code-cooldown") ?? 60),
                                hourlyLimit: try parsed.integer("code-hourly-limit") ?? 5)
        let stores = BackendOptions(parsed, dataDirectory: connection.dataDirectory)
        let step = CodeDispatchStep(codes: try stores.codeStore(), secrets: try HMACCodeSecrets(keyFile: backends.codeSecretKey()),
                                    mailer: try stores.mailer(), mail: MailSettings(from: try parsed.required("mail-from")),
                                    rules: CodeRules(policy: policy))
        let worker = try Worker(name: "code-dispatch-worker", configuration: connection.kafka(clientID: "code-dispatch-worker"),
                                routing: RoutingTable([AnswerOnce(step, memo: try stores.answerMemo(of: "code-dispatch-worker"))]))
        try await worker.run(until: shutdown)
        return .success
    }
}
