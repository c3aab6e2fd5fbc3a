#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Support

/// Key files: one line of standard base64. A secret file holds the secret (created 0600 in a 0700 directory,
/// see `PrivateFiles`; read only when `SecretFileRule` allows it); its public companion
/// `<path>.pub` holds the public key (mode 0644). Writes go through a temporary file in the same
/// directory, so readers never see a partial key.
enum KeyFile {
    /// Key files are tiny; anything larger is not one of ours.
    private static let maxFileSize = 4096

    /// The companion file holding the public key of the secret key at `path`.
    static func publicPath(for path: String) -> String {
        path + ".pub"
    }

    /// Reads the secret key at `path`, which must decode to exactly `count` bytes, when `SecretFileRule` lets this
    /// process read it; with `inPrivateDirectory` false (a user's own key file in an ordinary directory) the file alone.
    static func readSecret(at path: String, count: Int, inPrivateDirectory: Bool = true) throws -> SecretBytes {
        if inPrivateDirectory { try SecretFileRule.current.check(path) } else { try SecretFileRule.current.checkFile(path) }
        var text = try readFile(path)
        defer { wipe(&text) }
        return try decodeSecret(text, count: count, source: path)
    }

    /// Decodes the base64 `text` of a secret key from `source` (a path or an environment variable's name),
    /// which must decode to exactly `count` bytes.
    static func decodeSecret(_ text: [UInt8], count: Int, source: String) throws -> SecretBytes {
        try SecretBytes(count: count) { buffer in
            let written = text.withUnsafeBytes { Base64Codec.standard.decode(trimmed($0), into: buffer) }
            guard written == count else { throw CryptoError.keyFile(path: source, reason: "not a \(count)-byte base64 key") }
        }
    }

    /// Reads the public key at `path`.
    static func readPublic(at path: String) throws -> [UInt8] {
        let text = try readFile(path).withUnsafeBytes { String(decoding: trimmed($0), as: UTF8.self) }
        guard let key = Base64Codec.standard.decode(text) else {
            throw CryptoError.keyFile(path: path, reason: "not a base64 key")
        }
        return key
    }

    /// Writes `secret` to `path` with mode 0600, replacing any existing file.
    static func writeSecret(_ secret: SecretBytes, to path: String) throws {
        try PrivateFiles.prepareDirectory(PrivateFiles.parent(of: path))
        let temporary = try secret.withUnsafeBytes { try writeTemporary($0, near: path, mode: 0o600) }
        defer { unlink(temporary) }
        guard rename(temporary, path) == 0 else { throw failure(path, "rename") }
        syncDirectory(of: path)
    }

    /// Writes `secret` to `path` with mode 0600 unless a file already exists there; its directory is created
    /// (0700) or checked when `inPrivateDirectory`, else it must exist.
    /// - Returns: false, writing nothing, if `path` already existed (e.g. a concurrent process won the race).
    static func createSecret(_ secret: SecretBytes, at path: String, inPrivateDirectory: Bool = true) throws -> Bool {
        if inPrivateDirectory { try PrivateFiles.prepareDirectory(PrivateFiles.parent(of: path)) }
        let temporary = try secret.withUnsafeBytes { try writeTemporary($0, near: path, mode: 0o600) }
        defer { unlink(temporary) }
        guard link(temporary, path) == 0 else {
            if errno == EEXIST { return false }
            throw failure(path, "link")
        }
        syncDirectory(of: path)
        return true
    }

    /// Writes the public key `bytes` to `path` with mode 0644 unless it already holds exactly that key.
    static func writePublic(_ bytes: [UInt8], to path: String) throws {
        if (try? readPublic(at: path)) == bytes { return }
        let temporary = try bytes.withUnsafeBytes { try writeTemporary($0, near: path, mode: 0o644) }
        defer { unlink(temporary) }
        guard rename(temporary, path) == 0 else { throw failure(path, "rename") }
        syncDirectory(of: path)
    }

    /// Creates the secret at `path` (see `createSecret`), refusing to replace an existing one.
    static func createNewSecret(_ secret: SecretBytes, at path: String) throws {
        guard try createSecret(secret, at: path) else { throw CryptoError.keyFile(path: path, reason: "exists; not overwritten") }
    }

    static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    // MARK: - Files

    private static func readFile(_ path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure(path, "open") }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: maxFileSize + 1)
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { wipe(&bytes); throw failure(path, "read") }
            if n == 0 { break }
            count += n
        }
        guard count <= maxFileSize else { wipe(&bytes); throw CryptoError.keyFile(path: path, reason: "file too large") }
        let content = Array(bytes.prefix(count))
        wipe(&bytes)
        return content
    }

    /// Writes `bytes` as one base64 line to a new temporary file next to `path`, flushed to disk.
    private static func writeTemporary(_ bytes: UnsafeRawBufferPointer, near path: String, mode: mode_t) throws -> String {
        let temporary = "\(path).\(hex(SecureRandom.bytes(8))).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw failure(temporary, "create") }
        defer { close(fd) }
        let length = Base64Codec.standard.encodedLength(of: bytes.count)
        var line = [UInt8](repeating: 0, count: length + 1)
        defer { wipe(&line) }
        line.withUnsafeMutableBytes { Base64Codec.standard.encode(bytes, into: $0) }
        line[length] = UInt8(ascii: "\n")
        guard fchmod(fd, mode) == 0, writeAll(fd, line), fsync(fd) == 0 else {
            let error = failure(temporary, "write")
            unlink(temporary)
            throw error
        }
        return temporary
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return false }
            offset += n
        }
        return true
    }

    /// Makes a rename or link durable; best effort, since a failure here loses nothing already written.
    private static func syncDirectory(of path: String) {
        let fd = open(PrivateFiles.parent(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    private static func trimmed(_ text: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        var end = text.count
        while end > 0, [UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: " ")].contains(text[end - 1]) { end -= 1 }
        return UnsafeRawBufferPointer(rebasing: text[..<end])
    }

    private static func failure(_ path: String, _ operation: String) -> CryptoError {
        .keyFile(path: path, reason: "\(operation): \(String(cString: strerror(errno)))")
    }
}
