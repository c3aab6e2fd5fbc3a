import Crypto
import Domain
import Foundation

extension SealingKeyPair {
    /// The uid and profile a completed registration sealed to this reply key pair.
    public func open(_ completed: RegistrationCompleted) throws -> RegistrationResult {
        try open(completed.sealedResult, as: RegistrationResult.self, "RegistrationCompleted with an unreadable result")
    }

    /// The `T` whose JSON is `sealed` (base64) to this key pair; throws `UnexpectedOutcome` saying `what` when it is not one.
    func open<T: Decodable>(_ sealed: String, as type: T.Type, _ what: String) throws -> T {
        guard let bytes = Data(base64Encoded: sealed), let value = try? JSONDecoder().decode(type, from: Data(try open(Array(bytes)))) else {
            throw RegistrarClient.UnexpectedOutcome(type: what)
        }
        return value
    }
}
