import Crypto
import Domain
import Foundation

extension SealingKeyPair {
    /// The uid and profile a completed registration sealed to this reply key pair.
    public func open(_ completed: RegistrationCompleted) throws -> RegistrationResult {
        guard let sealed = Data(base64Encoded: completed.sealedResult),
              let result = try? JSONDecoder().decode(RegistrationResult.self, from: Data(try open(Array(sealed)))) else {
            throw RegistrarClient.UnexpectedOutcome(type: "RegistrationCompleted with an unreadable result")
        }
        return result
    }
}
