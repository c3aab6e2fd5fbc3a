import Crypto
import Domain
import EventTransport
import Foundation
import Kafka

/// The operator's actions on accounts: each request signed with the operator role's event key, its report opened with
/// the request's own reply key.
extension RegistrarClient {
    /// The request ``operate(_:signer:timeout:)`` publishes: `action` on the account of `email`, by the operator `actor`,
    /// issued at `issuedAt` (now).
    public func operatorRequest(_ action: OperatorAction, email: String, actor: String, locale: String? = nil,
                                requestId: String = UUID().uuidString.lowercased(), issuedAt: Date = Date()) -> OperatorRequested {
        OperatorRequested(requestId: requestId, action: action, email: email, actor: actor, replyKey: replyKey(for: requestId), locale: locale,
                          issuedAt: Int(issuedAt.timeIntervalSince1970))
    }

    /// Publishes `request` signed by `signer` and returns its outcome, `OperatorAnswered` or `OperatorRefused`, and, when
    /// answered, the opened report: nil for a request answered before under another reply key (a replay from another
    /// process), whose first report opens for that key alone.
    public func operate(_ request: OperatorRequested, signer: EventSigner, timeout: Duration) async throws -> (Event, AccountReport?) {
        let event = Event.operatorRequested(request)
        let outcome = try await self.outcome(of: event, timeout: timeout) {
            try await publish(OutgoingMessage(event, producer: name, signer: signer))
        }
        guard case .operatorAnswered(let answered) = outcome else { return (outcome, nil) }
        return (outcome, try? replySecret.open(answered.sealedReport, as: AccountReport.self, answering: request.requestId))
    }

    /// Publishes a `delete` request as ``operate(_:signer:timeout:)`` does and, once it is answered, waits for the
    /// deletion's end within `timeout` too: whether its `AccountDeleted` came (nil when the request was refused).
    public func operateDeletion(_ request: OperatorRequested, signer: EventSigner,
                                timeout: Duration) async throws -> (outcome: Event, report: AccountReport?, deleted: Bool?) {
        var answer: (Event, AccountReport?)?
        do {
            let deleted = try await outcome(keyed: request.requestId, on: Topic.accountOutcomes, timeout: timeout) {
                let outcome = try await operate(request, signer: signer, timeout: timeout)
                answer = outcome
                guard case .operatorAnswered = outcome.0 else { throw NotAnswered() }
            }
            guard let answer else { throw NotAnswered() }
            return (answer.0, answer.1, deleted.map { if case .accountDeleted = $0 { true } else { false } } ?? false)
        } catch is NotAnswered {
            guard let answer else { throw TimedOut(request: .operatorRequested(request), timeout: timeout) }
            return (answer.0, answer.1, nil)
        }
    }

    /// Ends the wait for a deletion whose request was refused.
    private struct NotAnswered: Error {}
}

extension OperatorRequested {
    /// The request id of the `reset_password` code `registrar operator reset-password` requests after the answer to the
    /// request `requestId`: the start of the operator `key`'s signature of it — one per operator request, so that a replay
    /// of the command mails no second code, yet unknown to whoever reads `operator.requests`, who could otherwise take the
    /// id first and have the command report a code sent that the owner never gets.
    public static func resetCodeRequestId(of requestId: String, key: SigningKeyPair) -> String {
        "reset-code-" + key.sign(Array(("reset-code " + requestId).utf8)).prefix(16).map { String(format: "%02x", $0) }.joined()
    }
}
