import AccountChanges
import Domain
import Verification

extension EventHandler {
    /// Handles `event`, then runs `followUp` on it, as `AnswerOnce` runs its work after the commit.
    public func handle(_ event: Event, then followUp: (Event) throws -> Void) throws -> [Event] {
        let answer = try handle(event)
        try followUp(event)
        return answer
    }
}

extension CodeDispatchStep {
    /// What the code dispatch worker does with `event` apart from its answer memo: records the code,
    /// then mails it (``deliver(_:)``).
    public func dispatch(_ event: Event) throws -> [Event] { try handle(event, then: deliver) }
}

extension AccountChangeStep {
    /// What the account worker does with `event` apart from its answer memo: the change, then its
    /// notice (``notify(_:)``).
    public func dispatch(_ event: Event) throws -> [Event] { try handle(event, then: notify) }
}
