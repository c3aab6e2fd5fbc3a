#if canImport(Glibc)
import Accounts
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Domain
import Support

/// The POSIX file operations of the embedded stores, failing with classified `StoreError`s.
enum FileSystem {
    /// A regular file found by `files(under:naming:)`.
    struct File {
        /// The path relative to the directory walked, after the prefix asked for.
        var path: String
        var size: Int
        var modifiedAt: Date
    }

    /// Creates the directory at `path`, and its missing parents, with `mode`.
    static func createDirectory(_ path: String, mode: mode_t = 0o755) throws(StoreError) {
        if mkdir(path, mode) == 0 || errno == EEXIST { return }
        guard errno == ENOENT, parent(of: path) != path else { throw failure("create directory", path) }
        try createDirectory(parent(of: path), mode: mode)
        guard mkdir(path, mode) == 0 || errno == EEXIST else { throw failure("create directory", path) }
    }

    /// Creates the directory at `path` 0700, or refuses an existing one open to others (see `PrivateFiles`).
    static func createPrivateDirectory(_ path: String) throws(StoreError) {
        do {
            try PrivateFiles.prepareDirectory(path)
        } catch {
            throw StoreError(.permanent, error.description)
        }
    }

    /// Replaces the file at `path` with `bytes` (given `mode`) atomically: readers see the old bytes or the
    /// new, never part. The bytes go to a hidden temporary file in the same directory, which is flushed to
    /// disk and renamed over `path`; then the directory is flushed too.
    static func replace(_ path: String, with bytes: [UInt8], mode: mode_t = 0o644) throws(StoreError) {
        let directory = parent(of: path)
        let temporary = "\(directory)/.\(String(UInt64.random(in: .min ... .max), radix: 16)).tmp"
        do throws(StoreError) {
            try create(temporary, with: bytes, mode: mode)
            guard rename(temporary, path) == 0 else { throw failure("rename to", path) }
        } catch {
            unlink(temporary)
            throw error
        }
        try synchronize(directory)
    }

    /// The bytes of the regular file at `path`, or nil when there is none.
    static func contents(of path: String, upTo limit: Int = .max) throws(StoreError) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw failure("open", path)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure("stat", path) }
        guard isRegular(info) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(Int(info.st_size), limit))
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count < limit {
            let wanted = min(chunk.count, limit - bytes.count)
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, wanted) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw failure("read", path) }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
        }
        return bytes
    }

    /// Whether a regular file exists at `path`.
    static func size(of path: String) throws(StoreError) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw failure("stat", path)
        }
        return isRegular(info) ? Int(info.st_size) : nil
    }

    /// Removes the file at `path`; a missing file is no error.
    static func remove(_ path: String) throws(StoreError) {
        guard unlink(path) == 0 || errno == ENOENT || errno == ENOTDIR else { throw failure("delete", path) }
    }

    /// The regular files in `directory` and its subdirectories, skipping hidden ones (names starting
    /// with "."), each named `prefix` + its path relative to `directory`; none when `directory` does not exist.
    static func files(under directory: String, naming prefix: String = "") throws(StoreError) -> [File] {
        guard let stream = opendir(directory) else {
            if errno == ENOENT || errno == ENOTDIR { return [] }
            throw failure("list", directory)
        }
        defer { closedir(stream) }
        var files: [File] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard !name.hasPrefix(".") else { continue }
            let path = "\(directory)/\(name)"
            var info = stat()
            guard stat(path, &info) == 0 else {
                if errno == ENOENT { continue } // deleted while listing
                throw failure("stat", path)
            }
            if isRegular(info) {
                files.append(File(path: prefix + name, size: Int(info.st_size), modifiedAt: modificationDate(info)))
            } else if info.st_mode & S_IFMT == S_IFDIR {
                files += try self.files(under: path, naming: "\(prefix)\(name)/")
            }
        }
        return files
    }

    /// The directory holding `path` ("/" for a top-level path, "." for a bare name).
    static func parent(of path: String) -> String {
        PrivateFiles.parent(of: path)
    }

    /// Creates `path`, which must not exist, with `bytes` and `mode`, flushed to disk.
    private static func create(_ path: String, with bytes: [UInt8], mode: mode_t) throws(StoreError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw failure("create", path) }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw failure("write", path) }
            offset += count
        }
        guard fsync(fd) == 0 else { throw failure("flush", path) }
    }

    /// Flushes a directory's entries (a rename in it) to disk.
    private static func synchronize(_ directory: String) throws(StoreError) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("open", directory) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw failure("flush", directory) }
    }

    private static func isRegular(_ info: stat) -> Bool {
        info.st_mode & S_IFMT == S_IFREG
    }

    private static func modificationDate(_ info: stat) -> Date {
        #if canImport(Darwin)
        let time = info.st_mtimespec
        #else
        let time = info.st_mtim
        #endif
        return Date(timeIntervalSince1970: Double(time.tv_sec) + Double(time.tv_nsec) / 1e9)
    }

    /// The error for the failed `operation` on `path`, from `errno`.
    ///
    /// Permanent when the key itself cannot work: it does not fit the tree (`ENAMETOOLONG`, `EISDIR`,
    /// `ENOTDIR`). Anything else is the file system's trouble, which a worker waits out: no space or
    /// quota (`ENOSPC`, `EDQUOT`), a read-only file system (`EROFS`), no permission (`EACCES`, `EPERM`),
    /// I/O errors, descriptors or memory running out, interrupted calls.
    private static func failure(_ operation: String, _ path: String, code: Int32 = errno) -> StoreError {
        let permanent: Set<Int32> = [ENAMETOOLONG, EISDIR, ENOTDIR]
        let message = "cannot \(operation) \(path): \(String(cString: strerror(code)))"
        return StoreError(permanent.contains(code) ? .permanent : .transient, message)
    }
}
