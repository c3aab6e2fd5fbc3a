import Domain
import Foundation
import Registration
import Verification

/// The registration's proof of the mailbox: the `register` codes of the verification flow.
struct RegisterCodes: MailboxProof {
    var codes: CodeVerifier

    func accepts(registerCode code: String, email: String, requestId: String, replyKey: String, at now: Date) throws -> Bool {
        try codes.verify(code, email: email, purposes: [.register], requestId: requestId, replyKey: replyKey, at: now) == nil
    }
}
