import Foundation
import Registration
import Synchronization

/// Register codes in memory: `code` of each email is accepted once, then only for the request that used it.
public final class FakeMailbox: MailboxProof {
    private let state = Mutex<(codes: [String: String], usedBy: [String: String])>(([:], [:]))

    public init() {}

    /// Makes `code` the register code of `email`, unused.
    public func mail(_ code: String, to email: String) {
        state.withLock { state in
            state.codes[email] = code
            state.usedBy[email] = nil
        }
    }

    public func accepts(registerCode code: String, email: String, requestId: String, replyKey: String, at now: Date) throws -> Bool {
        state.withLock { state in
            guard state.codes[email] == code else { return false }
            if let user = state.usedBy[email] { return user == requestId }
            state.usedBy[email] = requestId
            return true
        }
    }
}
