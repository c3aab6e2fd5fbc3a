import Foundation

/// What an outcome seals to its request's `replyKey`, named inside the sealed JSON together with the request it
/// answers, so that an opener takes it only as the answer to that request: a sealed answer copied into another
/// request's outcome, or into an outcome of another kind, is refused even where it opens.
public enum AnswerPurpose: String, Codable, Sendable, CaseIterable {
    /// `RegistrationCompleted.sealedResult`: a ``RegistrationResult``.
    case registrationResult = "registration_result"
    /// `TokenIssued.sealedTokens`: the token pair.
    case tokens
    /// `ProfileAnswered.sealedProfile`: a ``ProfileView``.
    case profile
    /// `SessionsAnswered.sealedSessions`: a ``SessionList``.
    case sessions
    /// `ExportAnswered.sealedExport`: an ``AccountExport``.
    case export
    /// `OperatorAnswered.sealedReport`: an ``AccountReport``.
    case accountReport = "account_report"
}

/// A payload sealed to a request's reply key: its JSON carries `requestId` (a registration's id) and `purpose`.
public protocol SealedAnswer: Codable, Sendable {
    /// The purpose every payload of this type names.
    static var purpose: AnswerPurpose { get }
    /// The request it answers.
    var requestId: String { get }
    /// What it is: ``purpose`` for a payload of this type.
    var purpose: AnswerPurpose { get }
}

extension SealedAnswer {
    /// Whether this payload says it is the answer of this type to request `requestId`.
    public func answers(_ requestId: String) -> Bool {
        self.requestId == requestId && purpose == Self.purpose
    }

    /// The JSON that is sealed (keys sorted).
    public var sealedJSON: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try! encoder.encode(self), as: UTF8.self)
    }
}
