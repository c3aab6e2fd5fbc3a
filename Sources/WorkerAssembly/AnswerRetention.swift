import Domain
import Foundation
import Support

/// How long the workers that answer requests once (account, code dispatch) keep each answer: by default as long as the
/// flows' topics keep a request (``Topic/flowRetention``), so that no redelivered or replayed request finds its answer
/// forgotten; their periodic sweep forgets older ones.
package enum AnswerRetention {
    package static let option = CommandSpec.Option.value(
        "answer-retention", "Seconds an answer (a registration's refusal too) is kept for a redelivered or replayed request (default: the flows' topic retention)",
        environment: "REGISTRAR_ANSWER_RETENTION", default: String(Topic.flowRetention.milliseconds / 1000))

    /// The seconds `parsed` sets.
    package static func seconds(_ parsed: ParsedArguments) throws -> Double {
        Double(try parsed.integer(option.name) ?? Int(Topic.flowRetention.milliseconds / 1000))
    }
}
