import Domain
import Foundation

/// The request ids (each with its topic, `<topic>/<id>`) whose seals were used, shared by every replica (a table of
/// the account database).
public protocol SealLedger: Sendable {
    /// Records that request `requestId` used the seals whose digest is `digest`, at `date`, unless it used some
    /// already. True the first time and for the very same seals again (a redelivery); false for other seals.
    func claim(requestId: String, digest: String, at date: Date) throws(StoreError) -> Bool

    /// Forgets the claims made before `date`; returns how many.
    func forget(claimedBefore date: Date) throws(StoreError) -> Int
}
