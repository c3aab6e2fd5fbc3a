import Domain
import Foundation

/// The proof that a registrant reads the mailbox of the address they register: a `register` code mailed there,
/// checked (and used) by the one-time codes (``CodeVerifier``; the account worker wires it).
public protocol MailboxProof: Sendable {
    /// Whether `code` is the current `register` code of `email` (normalised) that registration `requestId`, answered to
    /// `replyKey`, may use — using it (the same request may present it again, on redelivery).
    func accepts(registerCode code: String, email: String, requestId: String, replyKey: String, at now: Date) throws -> Bool
}
