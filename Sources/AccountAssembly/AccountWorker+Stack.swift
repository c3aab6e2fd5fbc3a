import AccountChanges
import Backends
import Courier
import Crypto
import CryptoAdapters
import Domain
import Foundation
import PasswordQuality
import Registration
import SignIn
import SMTPCourier
import SQLStores
import Support
import Verification
import WorkerAssembly

/// The account worker's stack: the account database (SQLite or PostgreSQL) with its codes, tokens, answers, outbox and
/// side-effect outbox (the welcome mails it sends), the profile store it reads and updates, the mailer (SMTP or the
/// outbox), and the password blocklist (libpwquality and zxcvbn), wired into every flow it serves.
extension AccountWorker: RunnableWorker {
    /// How long a refresh-token family is kept after its last token expired (an hour: replicas' clocks may differ).
    static let expiredTokenGrace: TimeInterval = 3_600

    public static func stack(_ parsed: ParsedArguments, dataDirectory: String,
                             clock: @escaping @Sendable () -> Date) throws -> WorkerStack {
        let deadline = Duration.seconds(try parsed.integer("saga-deadline") ?? 120)
        let rules = RegistrationRules(minimumPasswordLength: try parsed.integer("min-password-length") ?? 8,
                                      blocklist: try CommonPasswords())
        let stores = BackendOptions(parsed, dataDirectory: dataDirectory)
        let keys = WorkerKeys(parsed, stores: stores)
        let vault = SodiumCredentialVault(keys: try keys.sealingKeyPair())
        let signingKey = try keys.signingKey()
        let audience = TokenAudience(issuer: try parsed.required("token-issuer"), audience: try parsed.required("token-audience"))
        let minter = EdDSATokenMinter(key: signingKey, audience: audience)
        let codeSecrets = HMACCodeSecrets(authenticator: try keys.codeSecret())
        // In production the JWKS is the one `registrar keys` maintains beside the keys.
        if !stores.isProduction {
            try keys.signingKeySet.publish(current: signingKey().publicKey)
        }
        let mail = try MailOptions.settings(parsed, letters: letters)
        let accounts = try stores.accountChangeStore()
        let passwords = PasswordCheck(accounts: accounts, vault: vault, lockout: LockoutPolicy(
            base: Double(try parsed.integer("lockout-base") ?? 60), maximum: Double(try parsed.integer("lockout-maximum") ?? 900)),
            onLock: LockoutCounter.count)
        let codes = CodeVerifier(codes: try stores.codeStore(), secrets: codeSecrets)
        let tokens = try stores.tokenStore()
        let sealMaxAge = try parsed.integer("seal-max-age") ?? 300
        let seals = SealOpener(vault: vault, ledger: try stores.sealLedger(), maximumAge: Double(sealMaxAge), clock: clock,
                               onSkew: SealClock.reporter(maximumAge: sealMaxAge, logger: Logger(component: name)))
        let mailer = MeteredMailer(mailer: try stores.mailer())
        let registrations = RegistrationCoordinator(accounts: accounts, vault: vault, seals: seals, mailbox: RegisterCodes(codes: codes),
                                                    rules: rules, clock: clock,
                                                    effects: [Welcome.effect(mail: mail)])
        let changes = AccountChangeStep(accounts: accounts, passwords: passwords, codes: codes, tokens: tokens,
                                        mailer: mailer, mail: mail, seals: seals, rules: rules, clock: clock)
        let profiles = try stores.profileStore()
        let signIn = SignInStep(passwords: passwords, codes: codes, profiles: profiles,
                                issuer: TokenIssuer(tokens: tokens, minter: minter, vault: vault,
                                                    accessLifetime: Double(try parsed.integer("access-token-lifetime") ?? 900)),
                                registrations: registrations,
                                mailer: mailer, mail: mail, clock: clock)
        let gate = SessionGate(accessTokens: try keys.accessTokenVerifier(signingKey: signingKey, audience: audience), accounts: accounts,
                               tokens: tokens)
        let profileRead = ProfileReadStep(seals: seals, gate: gate, loginGuard: LoginGuard(accounts: accounts, profiles: profiles), clock: clock)
        let sessions = SessionStep(gate: gate, accounts: accounts, minter: minter, seals: seals, mailer: mailer, mail: mail, clock: clock)
        let window = Double(try parsed.integer("reauthentication-window") ?? 300)
        let export = ExportStep(gate: gate, accounts: accounts, profiles: profiles, seals: seals, reauthenticationWindow: window, clock: clock)
        let deletion = DeletionStep(gate: gate, accounts: accounts, passwords: passwords, codes: codes, seals: seals, mailer: mailer, mail: mail,
                                    reauthenticationWindow: window, clock: clock)
        let operations = OperatorStep(accounts: accounts, deletion: deletion, clock: clock)
        let updates = ProfileUpdateStep(gate: gate, accounts: accounts, profiles: profiles, seals: seals, rules: rules, clock: clock)
        let answers = try stores.answerMemo(of: name, clock: clock)
        let retention = try AnswerRetention.seconds(parsed)
        SagaGauge.watch(accounts, clock: clock)
        let logger = Logger(component: name)
        let noticeRefused: @Sendable (Event) -> (StoreError) -> Void = { event in { error in
            logger.warning("the deletion notice was refused for good; the deletion goes on", ["flow_id": event.key, "error": error.message])
        } }
        return WorkerStack(
            name: name,
            routing: RoutingTable([registrations, AnswerOnce(signIn, memo: answers, afterCommit: { try signIn.notify($0) },
                                             repeated: { try signIn.repeated($0) }),
                                   AnswerOnce(profileRead, memo: answers),
                                   AnswerOnce(sessions, memo: answers, afterCommit: { try sessions.notify($0) }),
                                   AnswerOnce(export, memo: answers),
                                   AnswerOnce(changes, memo: answers, afterCommit: { try changes.notify($0) },
                                              claimed: { try deletion.claims.events(answering: $0) }),
                                   AnswerOnce(deletion, memo: answers, afterCommit: { try deletion.notify($0, undeliverable: noticeRefused($0)) },
                                              keepingWork: true),
                                   AnswerOnce(updates, memo: answers, keepingWork: true),
                                   AnswerOnce(operations, memo: answers, afterCommit: { try operations.notify($0, undeliverable: noticeRefused($0)) })]),
            periodic: {
                try seals.forgetExpiredClaims()
                _ = try answers.forget(answeredBefore: clock().addingTimeInterval(-retention))
                // Codes and pending sign-ins name an address in the clear: kept no longer than the answers to their requests.
                try codes.codes.forgetCodes(expiredBefore: clock().addingTimeInterval(-retention))
                try tokens.forgetPending(recordedBefore: clock().addingTimeInterval(-retention))
                // A refused registration is answered again as long as its request can be delivered again.
                _ = try accounts.forgetRefusals(recordedBefore: clock().addingTimeInterval(-retention))
                try tokens.forgetExpiredFamilies(expiredBefore: clock().addingTimeInterval(-expiredTokenGrace), limit: 1_000)
                // Each sweep on its own: one failing (logged, run again next time) keeps none of the others' events back,
                // whose records it already moved.
                let sweeps: [(String, () throws -> [Event])] = [
                    ("registrations", { try registrations.expireSagas(stalledFor: deadline) }),
                    ("email changes", { try changes.expireChanges(stalledFor: deadline) }),
                    ("deletions", { try deletion.resumeDeletions(stalledFor: deadline) }),
                    ("profile updates", { try updates.expireUpdates(stalledFor: deadline) }),
                ]
                return sweeps.flatMap { name, sweep in
                    do {
                        return try sweep()
                    } catch {
                        logger.warning("a saga sweep failed; the others went on", ["sweep": name, "error": "\(error)"])
                        return []
                    }
                }
            },
            hearing: { hears in for watch in [registrations.progress, changes.progress, deletion.progress, updates.progress] { watch.canSee(hears) } },
            outbox: try stores.accountOutbox(),
            effects: SideEffects(outbox: try stores.effectOutbox(),
                                 performers: [EmailMessage.effectTopic: { (effect) throws(StoreError) in try mailer.perform(effect) }]))
    }
}
