import Accounts
import Foundation
import Domain

/// Objects as files under one root directory (e.g. `<data>/objects`): key `ProfileImages/x.jpg` is
/// the file `<root>/ProfileImages/x.jpg`.
///
/// Keys are those `ObjectKey.validate` accepts (nothing outside the root is reachable) whose
/// segments do not start with "." either (hidden names stay free for temporary files); other keys
/// are refused with a permanent error. Writes are atomic: readers see the old object or
/// the new one, never part of one. Content types are not stored: whatever serves the files infers
/// them from the names.
public struct FileObjectStore: ObjectStore {
    /// The absolute path of the root directory.
    public let root: String
    /// The URL that `url(for:)` puts keys under, or nil for `file://` URLs of the files.
    public let publicBaseURL: String?

    /// A store in `root`, which is created if needed.
    /// - Parameter publicBaseURL: Where clients fetch the objects, e.g. `https://cdn.example.com/objects`;
    ///   nil when they read the files directly.
    public init(root: String, publicBaseURL: String? = nil) throws(StoreError) {
        self.root = URL(fileURLWithPath: root).standardizedFileURL.path
        self.publicBaseURL = publicBaseURL
        try FileSystem.createDirectory(self.root)
    }

    public func put(_ bytes: [UInt8], key: String, contentType: String) throws(StoreError) {
        let path = try path(of: key)
        try FileSystem.createDirectory(FileSystem.parent(of: path))
        try FileSystem.replace(path, with: bytes)
    }

    public func get(_ key: String) throws(StoreError) -> [UInt8]? {
        try FileSystem.contents(of: path(of: key))
    }

    public func prefix(of key: String, length: Int) throws(StoreError) -> [UInt8]? {
        try FileSystem.contents(of: path(of: key), upTo: length)
    }

    public func size(of key: String) throws(StoreError) -> Int? {
        try FileSystem.size(of: path(of: key))
    }

    public func delete(_ key: String) throws(StoreError) {
        try FileSystem.remove(path(of: key))
    }

    /// The objects whose key starts with `prefix`, sorted by key. Only the directory the prefix
    /// names (up to its last "/") is walked.
    public func list(prefix: String) throws(StoreError) -> [StoredObject] {
        let directory = prefix.lastIndex(of: "/").map { String(prefix[..<$0]) } ?? ""
        let files = directory.isEmpty
            ? try FileSystem.files(under: root)
            : try FileSystem.files(under: path(of: directory), naming: directory + "/")
        return files
            .filter { $0.path.hasPrefix(prefix) }
            .map { StoredObject(key: $0.path, size: $0.size, modifiedAt: $0.modifiedAt) }
            .sorted { $0.key < $1.key }
    }

    /// `<publicBaseURL>/<key>` (percent-encoded), or the `file://` URL of the object's file.
    public func url(for key: String) -> String {
        guard let base = publicBaseURL else {
            return URL(fileURLWithPath: root).appendingPathComponent(key).absoluteString
        }
        let path = key.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? key
        return base.hasSuffix("/") ? base + path : "\(base)/\(path)"
    }

    /// The absolute path of the file of `key`, which must be a valid key.
    private func path(of key: String) throws(StoreError) -> String {
        try ObjectKey.validate(key)
        guard !key.split(separator: "/").contains(where: { $0.hasPrefix(".") }) else {
            throw StoreError(.permanent, "object key refused (a segment starts with \".\")")
        }
        return "\(root)/\(key)"
    }
}
