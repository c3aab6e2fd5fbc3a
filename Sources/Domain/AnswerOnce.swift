/// Remembers the answer given to each request, so that a request is answered once whatever happens.
public protocol AnswerMemo: Sendable {
    /// The answer (encoded event) already given to `requestId`, if any.
    func answer(to requestId: String) throws(StoreError) -> [UInt8]?
    /// Keeps `answer` for `requestId` unless one is kept already; returns the one kept.
    func keep(_ answer: [UInt8], for requestId: String) throws(StoreError) -> [UInt8]
}

/// A step whose answers (on the code, sign-in and account-change outcome topics) are given once
/// per request id: a redelivered request, or an event that answers it again, republishes the first
/// answer verbatim instead of a new one (new tokens, a cooldown refusal for a code already sent).
public struct AnswerOnce<Step: EventHandler>: EventHandler {
    public var step: Step
    public var memo: any AnswerMemo

    /// The step's routes.
    public static var routes: Set<Route> { Step.routes }

    /// The topics whose events answer a request.
    public static var answerTopics: Set<String> { [Topic.codeOutcomes, Topic.authOutcomes, Topic.accountOutcomes] }

    public init(_ step: Step, memo: any AnswerMemo) {
        self.step = step
        self.memo = memo
    }

    public func handle(_ event: Event) throws -> [Event] {
        if event.isRequest, let answer = try memo.answer(to: event.key) { return [try EventCodec.decode(answer)] }
        return try step.handle(event).map { output in
            guard Self.answerTopics.contains(output.topic) else { return output }
            return try EventCodec.decode(try memo.keep(EventCodec.encode(output), for: output.key))
        }
    }

    /// Keeps `failure` as the request's answer, unless it was answered already: then that answer.
    public func answer(deadLettered failure: Event) throws -> [Event] {
        [try EventCodec.decode(try memo.keep(EventCodec.encode(failure), for: failure.key))]
    }
}

extension Event {
    /// Whether this event is a client's request that is answered on an outcome topic.
    var isRequest: Bool {
        switch self {
        case .codeRequested, .tokenRequested, .passwordChangeRequested, .passwordResetRequested, .emailChangeRequested: true
        default: false
        }
    }
}
