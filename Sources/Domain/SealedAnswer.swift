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

/// A payload sealed to a request's reply key: its JSON carries `requestId` (the id of the request it answers; a
/// registration's for a ``RegistrationResult``) and, beside the payload's own fields, the type's `purpose`.
public protocol SealedAnswer: Codable, Sendable {
    /// The purpose every payload of this type names.
    static var purpose: AnswerPurpose { get }
    /// The request it answers.
    var requestId: String { get }
}

extension SealedAnswer {
    /// The JSON that is sealed (keys sorted): the payload's fields and `purpose`.
    public var sealedJSON: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try! encoder.encode(Purposed(answer: self)), as: UTF8.self)
    }

    /// The payload of this type in `json` if it names this type's purpose and answers request `requestId`; else nil.
    public static func opened(from json: some DataProtocol, answering requestId: String) -> Self? {
        guard let answer = try? JSONDecoder().decode(Purposed<Self>.self, from: Data(json)).answer,
              answer.requestId == requestId else { return nil }
        return answer
    }
}

/// A payload with its type's purpose, as it is sealed: the purpose is a key beside the payload's own.
private struct Purposed<Answer: SealedAnswer>: Codable {
    var answer: Answer

    private enum Key: String, CodingKey { case purpose }

    init(answer: Answer) { self.answer = answer }

    init(from decoder: any Decoder) throws {
        let purpose = try decoder.container(keyedBy: Key.self).decode(AnswerPurpose.self, forKey: .purpose)
        guard purpose == Answer.purpose else {
            let found = "a \(purpose.rawValue), not a \(Answer.purpose.rawValue)"
            throw DecodingError.dataCorrupted(.init(codingPath: [Key.purpose], debugDescription: found))
        }
        answer = try Answer(from: decoder)
    }

    func encode(to encoder: any Encoder) throws {
        try answer.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(Answer.purpose, forKey: .purpose)
    }
}
