import Domain
import Verification

extension CodeDispatchStep {
    /// What the code dispatch worker does with `event` apart from its answer memo: records the code,
    /// then mails it (``deliver(_:)``), then answers.
    public func dispatch(_ event: Event) throws -> [Event] {
        let answer = try handle(event)
        try deliver(event)
        return answer
    }
}
