import Domain
import Foundation

/// An object's key, size and last change.
public struct StoredObject: Sendable, Equatable {
    public var key: String
    public var size: Int
    public var modifiedAt: Date

    public init(key: String, size: Int, modifiedAt: Date) {
        self.key = key
        self.size = size
        self.modifiedAt = modifiedAt
    }
}

/// Blob storage for avatars (`ProfileImages/<uuid>.jpg`) and staged uploads (`staging/<id>`).
/// Every call refuses (permanently) a key `ObjectKey.validate` refuses.
public protocol ObjectStore: Sendable {
    /// Stores `bytes` under `key`, replacing any object there.
    func put(_ bytes: [UInt8], key: String, contentType: String) throws(StoreError)
    /// The object's bytes, or nil when there is none.
    func get(_ key: String) throws(StoreError) -> [UInt8]?
    /// The object's first `length` bytes at most (all of it when it is shorter), or nil when there is none: a read
    /// bounded whatever the object's size.
    func prefix(of key: String, length: Int) throws(StoreError) -> [UInt8]?
    /// The object's size in bytes (a stat or HEAD, not a read), or nil when there is none.
    func size(of key: String) throws(StoreError) -> Int?
    /// Deletes the object; deleting a missing object succeeds.
    func delete(_ key: String) throws(StoreError)
    /// Objects whose key starts with `prefix`.
    func list(prefix: String) throws(StoreError) -> [StoredObject]
    /// The URL clients use to fetch the object (`profileImage`).
    func url(for key: String) -> String
}

extension ObjectStore {
    /// Throws a transient error while the store cannot be reached or fails (5xx), so that a worker starting then
    /// waits; a store that answers, even refusing the request (a bucket policy without listing), is there.
    public func probe() throws(StoreError) {
        do throws(StoreError) {
            _ = try size(of: "staging/startup-probe")
        } catch where error.kind == .permanent {
            return
        }
    }

    /// Whether an object exists under `key`.
    public func contains(_ key: String) throws(StoreError) -> Bool {
        try size(of: key) != nil
    }
}
