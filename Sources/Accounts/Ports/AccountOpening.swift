import Domain

/// The registration flow as sign-in needs it: a sign-in by a `register` code of an email without an account opens one
/// through the registration saga, and is answered from that saga's outcome. The registration flow's coordinator
/// conforms; the account worker wires it into the sign-in step.
public protocol AccountOpening: Sendable {
    /// The seals of the account worker's requests.
    var seals: SealOpener { get }
    /// The accounts and their registration sagas.
    var accounts: any AccountStore { get }
    /// Starts the registration of an account without a password for `email` (valid and normalised), answered to
    /// `replyKey`; idempotent by `registrationId`.
    func startWithoutPassword(registrationId: String, email: String, replyKey: String) throws -> [Event]
    /// The outcome the saga announces (completed or failed), once it has one.
    func outcome(of saga: SagaRecord) -> Event?
}
