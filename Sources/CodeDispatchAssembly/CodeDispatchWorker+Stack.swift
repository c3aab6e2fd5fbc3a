import Backends
import Courier
import CryptoAdapters
import Domain
import Foundation
import SMTPCourier
import SQLStores
import Support
import Verification
import WorkerAssembly

/// The code dispatch worker's stack: the codes and answers of the account database (SQLite or PostgreSQL) and the
/// mailer (SMTP or the outbox).
extension CodeDispatchWorker: RunnableWorker {
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
