/// A command a saga sends to another worker (`StoreAvatar`, `DeleteAvatar`, `WriteProfile`, `DeleteProfile`,
/// `UpdateProfileEmail`): it names the saga `step` that sent it (the stage of the saga's record) and its
/// `revision`, the account's revision at that step, which grows with every step of every saga of the account.
/// A worker keeps, per record it changes, the revision of the last command applied, and refuses an older
/// one (``UntrustedEvent/staleCommand(_:)``): a replayed or overtaken command cannot undo a later step.
public protocol SagaCommand: Sendable {
    var step: String { get }
    var revision: Int { get }
}

extension SagaCommand {
    /// Whether this command is older than `applied`, the revision its record reflects (nil: none applied yet).
    /// A command of the very revision applied is its redelivery, applied again to the same effect.
    public func isStale(against applied: Int?) -> Bool {
        applied.map { revision < $0 } ?? false
    }
}

extension UntrustedEvent {
    /// The refusal of `event`, the command `command`, older than what `record` (e.g. "the profile") last applied.
    public static func stale(_ event: Event, _ command: some SagaCommand, than record: String) -> UntrustedEvent {
        .staleCommand("\(event.type) for \(event.key) (step \(command.step), revision \(command.revision)) is older than \(record)'s last command")
    }
}
