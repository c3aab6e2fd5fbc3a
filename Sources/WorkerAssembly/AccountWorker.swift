import AccountChanges
import Backends
import Courier
import CryptoAdapters
import Domain
import Registration
import SignIn
import Support
import Verification

/// The account worker: the registration saga, sign-in, account changes and deletions, the operator's actions, each
/// request answered once,
/// and the sweep that undoes registrations and email changes past their deadline (and resends a deletion's step) and forgets expired seal claims,
/// refresh-token families, and answers older than their retention. Its stack: `AccountAssembly`.
public enum AccountWorker: WorkerKind, HoldsFlowKeys {
    public static let role = WorkerRole.account
    public static let summary = "create accounts, drive the registration saga, sign in, sign out, change and update accounts"
    public static let steps: [any EventHandler.Type] = [RegistrationCoordinator.self, AnswerOnce<SignInStep>.self, AnswerOnce<ProfileReadStep>.self,
                                                            AnswerOnce<SessionStep>.self, AnswerOnce<ExportStep>.self,
                                                            AnswerOnce<AccountChangeStep>.self, AnswerOnce<DeletionStep>.self,
                                                            AnswerOnce<ProfileUpdateStep>.self, AnswerOnce<OperatorStep>.self]
    static let flowKeys = [WorkerKeys.sealing, WorkerKeys.signing, WorkerKeys.codeSecret]
    public static let letters = SignInStep.letters + AccountChangeStep.letters + DeletionStep.letters + [Welcome.letter]
    public static let options = BackendOptions.specs.filter { $0.name != "images" } + WorkerKeys.specs(flowKeys) + [
        .value("min-password-length", "Shortest password accepted (NIST: 8; the original apps: 6)", environment: "REGISTRAR_MIN_PASSWORD_LENGTH", default: "8"),
        .value("saga-deadline", "Seconds a registration, email change or profile update may go without progress (no step's reply, no heartbeat of a step waiting for its store) before it is undone (a deletion's step, or a profile update's past its switch, before it is sent again); measured on the monotonic clock", environment: "REGISTRAR_SAGA_DEADLINE", default: "120"),
        .value("lockout-base", "Seconds password sign-in is locked after 5 wrong passwords in a row, doubling per further failure", environment: "REGISTRAR_LOCKOUT_BASE", default: "60"),
        .value("lockout-maximum", "Longest lock in seconds", environment: "REGISTRAR_LOCKOUT_MAXIMUM", default: "900"),
        .value("token-issuer", "The `iss` of access tokens; verifiers require it", environment: "REGISTRAR_TOKEN_ISSUER", default: TokenAudience.defaultIssuer),
        .value("token-audience", "The `aud` of access tokens; verifiers require it", environment: "REGISTRAR_TOKEN_AUDIENCE", default: TokenAudience.defaultAudience),
        .value("access-token-lifetime", "Seconds an access token is valid: a verifier outside Registrar cannot see a credential change end it",
               environment: "REGISTRAR_ACCESS_TOKEN_LIFETIME", default: "900"),
        .value("seal-max-age", "Seconds a sealed secret counts after (or before) the time sealed in it", environment: "REGISTRAR_SEAL_MAX_AGE", default: "300"),
        .value("reauthentication-window", "Seconds after its sign-in that a session may export the account's data or delete the account",
               environment: "REGISTRAR_REAUTHENTICATION_WINDOW", default: "300"),
        AnswerRetention.option,
    ] + MailOptions.specs
}
