import Foundation

/// A request as the answer memo knows it: its id on its request topic. Each request topic has its own ids, so an id
/// reused on another flow is another request, answered on its own.
@PublicInit
public struct AnswerKey: Hashable, Sendable, CustomStringConvertible {
    /// The request topic (`code.requests`, `auth.requests`, `account.requests`).
    public var topic: String
    public var id: String

    public var description: String { "\(topic)/\(id)" }
}

/// Remembers the answer given to each request, so that a request is answered once whatever happens, for as long as
/// its topics keep requests that could be redelivered or replayed (by default ``Topic/flowRetention``); then the
/// worker's sweep forgets it.
public protocol AnswerMemo: Sendable {
    /// The answer (encoded event) already given to `request`, if any.
    func answer(to request: AnswerKey) throws(StoreError) -> [UInt8]?
    /// Keeps `answer` for `request` unless one is kept already.
    /// - Returns: The answer kept before, or nil when `answer` is now the one kept.
    func keep(_ answer: [UInt8], for request: AnswerKey) throws(StoreError) -> [UInt8]?
    /// Runs `work` as one unit of work with the memo: the writes of the stores sharing the memo's
    /// database and the answers kept commit together when it returns, and none of them when it throws.
    func atomically<T: Sendable>(_ work: () throws -> T) throws -> T
    /// Forgets the answers kept before `date` (the worker's periodic sweep); returns how many.
    func forget(answeredBefore date: Date) throws(StoreError) -> Int
}


/// A step whose answers (on the code, sign-in and account-change outcome topics) are given once
/// per request id: a redelivered request, or an event that answers it again, republishes the first
/// answer verbatim instead of a new one (new tokens, a cooldown refusal for a code already sent).
///
/// The step runs in one unit of work with the memo, so its writes and its answer commit together:
/// a crash leaves both or neither, and a run that finds an answer kept meanwhile (by a replica, for
/// a redelivery) is rolled back whole, its writes undone, and gives that answer. Work that must
/// follow the commit (mailing a committed code) is `afterCommit`, run for every answer of a request,
/// the first or a repeated one, before it is published.
///
/// A request answered already is answered with the first answer whatever its reply key: an answer sealed to the
/// first request's key opens for no one else, and a client still waiting for the first request takes it as its
/// own. What a repetition tells the step (a refresh token presented again under a used request id) is `repeated`'s.
///
/// A request id a saga holds before its answer is kept (an account deletion, an email change) is `claimed`: any other
/// request under that id — a forged one, or one dead-lettered — is answered as that saga (its events, nothing kept), so
/// no answer of another kind is ever kept for it and the saga's own answer is its one outcome. A step whose work must
/// never be undone by an answer kept meanwhile (a deletion's erasure) is `keepingWork`: its writes commit and the answer
/// kept before is the one given.
public struct AnswerOnce<Step: EventHandler>: EventHandler {
    public var step: Step
    public var memo: any AnswerMemo
    public var afterCommit: @Sendable (Event) throws -> Void
    /// Sees each request that was answered already, before its first answer is given again.
    public var repeated: @Sendable (Event) throws -> Void
    /// The events answering a request whose id a saga in progress holds, or nil when none does.
    public var claimed: @Sendable (AnswerKey) throws -> [Event]?
    /// Whether the step's writes commit even when its request was answered meanwhile (rolled back otherwise).
    public var keepingWork: Bool

    /// The step's routes.
    public static var routes: Set<Route> { Step.routes }

    /// The topics whose events answer a request once: the outcome topics of the flows declared answered once.
    public static var answerTopics: Set<String> { Set(Flow.all.filter(\.isAnsweredOnce).map(\.outcomes.topic)) }

    public init(_ step: Step, memo: any AnswerMemo, afterCommit: @escaping @Sendable (Event) throws -> Void = { _ in },
                repeated: @escaping @Sendable (Event) throws -> Void = { _ in },
                claimed: @escaping @Sendable (AnswerKey) throws -> [Event]? = { _ in nil }, keepingWork: Bool = false) {
        self.step = step
        self.memo = memo
        self.afterCommit = afterCommit
        self.repeated = repeated
        self.claimed = claimed
        self.keepingWork = keepingWork
    }

    public func handle(_ event: Event) throws -> [Event] {
        let outputs = try answers(to: event)
        try afterCommit(event)
        return outputs
    }

    private func answers(to event: Event) throws -> [Event] {
        if event.isRequest, let answer = try memo.answer(to: AnswerKey(topic: event.topic, id: event.key)) {
            try repeated(event)
            return [try EventCodec.decode(answer)]
        }
        if event.isRequest, let events = try claimed(AnswerKey(topic: event.topic, id: event.key)) { return events }
        do {
            return try memo.atomically {
                try step.handle(event).map { output in
                    guard Self.answerTopics.contains(output.topic), let request = output.answerKey,
                          let earlier = try memo.keep(EventCodec.encode(output), for: request) else { return output }
                    guard keepingWork else { throw Answered(earlier) }
                    return try EventCodec.decode(earlier)
                }
            }
        } catch let answered as Answered {
            return [try EventCodec.decode(answered.answer)]
        }
    }

    /// Keeps `failure` as the request's answer, unless it was answered already (then that answer) or a saga holds its id
    /// (then the saga's events).
    public func answer(deadLettered failure: Event) throws -> [Event] {
        guard let request = failure.answerKey else { return [failure] }
        if let events = try claimed(request) { return events }
        let encoded = EventCodec.encode(failure)
        return [try EventCodec.decode(try memo.keep(encoded, for: request) ?? encoded)]
    }
}

/// Rolls back a run of a step whose request was answered meanwhile, giving that `answer`.
private struct Answered: Error {
    var answer: [UInt8]

    init(_ answer: [UInt8]) {
        self.answer = answer
    }
}

extension Event {
    /// The request this event answers, when it is an answer on an outcome topic.
    var answerKey: AnswerKey? {
        Topic.requests(answeredOn: topic).map { AnswerKey(topic: $0, id: key) }
    }

    /// Whether this event is a client's request that is answered on an outcome topic.
    var isRequest: Bool {
        switch self {
        case .codeRequested, .tokenRequested, .profileRequested, .passwordChangeRequested, .passwordResetRequested, .emailChangeRequested,
             .signOutRequested, .sessionsRequested, .exportRequested, .accountDeletionRequested, .profileUpdateRequested,
             .operatorRequested: true
        default: false
        }
    }
}
