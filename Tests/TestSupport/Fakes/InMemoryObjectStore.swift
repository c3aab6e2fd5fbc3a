import Domain
import Foundation
import Registration
import Synchronization

/// Objects in memory, at `memory://<key>`.
public final class InMemoryObjectStore: ObjectStore {
    private let objects = Mutex<[String: [UInt8]]>([:])
    /// Raised by `put`.
    public let puts = Fault()

    public init() {}

    public func put(_ bytes: [UInt8], key: String, contentType: String) throws(StoreError) {
        try ObjectKey.validate(key)
        try puts.check()
        objects.withLock { $0[key] = bytes }
    }

    public func get(_ key: String) throws(StoreError) -> [UInt8]? {
        try ObjectKey.validate(key)
        return objects.withLock { $0[key] }
    }

    public func prefix(of key: String, length: Int) throws(StoreError) -> [UInt8]? {
        try get(key).map { Array($0.prefix(length)) }
    }

    public func size(of key: String) throws(StoreError) -> Int? {
        try ObjectKey.validate(key)
        return objects.withLock { $0[key]?.count }
    }

    public func delete(_ key: String) throws(StoreError) {
        try ObjectKey.validate(key)
        objects.withLock { $0[key] = nil }
    }

    public func list(prefix: String) throws(StoreError) -> [StoredObject] {
        objects.withLock { objects in
            objects.filter { $0.key.hasPrefix(prefix) }.map { StoredObject(key: $0.key, size: $0.value.count, modifiedAt: .distantPast) }
                .sorted { $0.key < $1.key }
        }
    }

    public func url(for key: String) -> String { "memory://\(key)" }

    /// Every key stored.
    public var keys: [String] { objects.withLock { $0.keys.sorted() } }
}
