import Domain
import Synchronization
@testable import TestSupport

/// A step with the account worker's sign-in routes (`TokenRequested` on `auth.requests`, registration
/// outcomes on `registration.outcomes`), and `TokenRequested` on every input topic (so that a
/// test can reach a worker through each), that records every event it is handed and answers as `script`
/// says, given the event and its attempt number (from 1). By default it refuses every token request.
final class ScriptedStep: EventHandler, Sendable {
    static let routes = Route.set([Topic.registrationOutcomes: [.registrationCompleted, .registrationFailed]])
        .union(Topic.inputs.map { Route(.tokenRequested, on: $0) })

    typealias Script = @Sendable (_ event: Event, _ attempt: Int) throws -> [Event]

    /// The flow id of each event handed over, once per attempt.
    let handled = Mutex<[String]>([])
    private let script: Script

    init(_ script: @escaping Script = { event, _ in ScriptedStep.refusal(of: event) }) {
        self.script = script
    }

    func handle(_ event: Event) throws -> [Event] {
        let attempt = handled.withLock { handled in
            handled.append(event.key)
            return handled.count { $0 == event.key }
        }
        return try script(event, attempt)
    }

    /// The flow ids handed over so far.
    var flows: [String] { handled.withLock { $0 } }

    /// A `TokenRefused` answering `event`.
    static func refusal(of event: Event) -> [Event] {
        [.tokenRefused(RequestRefusal(requestId: event.key, reason: .invalidCredentials, message: "refused (test)"))]
    }

    /// A password token request with flow id `requestId`.
    static func request(_ requestId: String) -> Event {
        .tokenRequested(TokenRequested(requestId: requestId, grantType: .password, email: "someone@example.com",
                                       sealedCredential: "c2VhbGVk", replyKey: "cmVwbHk="))
    }
}
