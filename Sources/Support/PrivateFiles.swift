#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Files only their owner may touch — key files, SQLite databases (password hashes) and outbox messages
/// (codes): created 0600 in 0700 directories, and refused when an existing one, or its directory, grants
/// group or others any access. Secrets put in place by someone else are read under `SecretFileRule`.
public enum PrivateFiles {
    public static let fileMode: mode_t = 0o600
    public static let directoryMode: mode_t = 0o700

    /// Creates the directory at `path` (and its missing parents) 0700, or checks the existing one.
    public static func prepareDirectory(_ path: String) throws(PrivateFileError) {
        try createMissing(path)
        try check(path)
    }

    /// Makes the file at `path` ready to be opened: its directory created (0700) or checked, the file
    /// checked if it exists, else created empty with mode 0600.
    public static func prepareFile(_ path: String) throws(PrivateFileError) {
        try prepareDirectory(parent(of: path))
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, fileMode)
        if fd >= 0 { close(fd); return }
        guard errno == EEXIST else { throw .unusable(path, String(cString: strerror(errno))) }
        try check(path)
    }

    /// Refuses `path` when its mode grants group or others anything; a missing path passes.
    public static func check(_ path: String) throws(PrivateFileError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { return }
            throw .unusable(path, String(cString: strerror(errno)))
        }
        let mode = info.st_mode & 0o7777
        guard mode & 0o077 == 0 else { throw .tooWide(path, mode: mode, isDirectory: info.st_mode & S_IFMT == S_IFDIR) }
    }

    /// Creates `path` and its missing parents 0700, leaving existing ones as they are.
    private static func createMissing(_ path: String) throws(PrivateFileError) {
        if mkdir(path, directoryMode) == 0 || errno == EEXIST { return }
        guard errno == ENOENT, parent(of: path) != path else { throw .unusable(path, String(cString: strerror(errno))) }
        try createMissing(parent(of: path))
        guard mkdir(path, directoryMode) == 0 || errno == EEXIST else { throw .unusable(path, String(cString: strerror(errno))) }
    }

    /// The directory holding `path` ("/" for a top-level path, "." for a bare name).
    public static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}

/// A private file or directory that is open to others, or cannot be created or examined.
public enum PrivateFileError: Error, Sendable, Equatable, CustomStringConvertible {
    case tooWide(String, mode: mode_t, isDirectory: Bool)
    case unusable(String, String)
    /// Owned by another user than this process's and root (see `SecretFileRule`).
    case foreignOwner(String, owner: uid_t)
    /// Readable by a group that is not this process's own (see `SecretFileRule`).
    case foreignGroup(String, group: gid_t, processGroup: gid_t)

    public var description: String {
        switch self {
        case let .tooWide(path, mode, isDirectory):
            let wanted = isDirectory ? "700" : "600"
            return "\(path) has mode 0\(String(mode, radix: 8)), open to group or others; refusing to use it (chmod \(wanted) \(path))"
        case let .unusable(path, reason):
            return "cannot use \(path): \(reason)"
        case let .foreignOwner(path, owner):
            return "\(path) belongs to uid \(owner), neither this process's user (\(geteuid())) nor root; refusing to use it"
        case let .foreignGroup(path, group, processGroup):
            return "\(path) is readable by group \(group), not this process's own group \(processGroup); refusing to use it "
                + "(chmod 600 \(path), or on Kubernetes set runAsGroup to the pod's fsGroup)"
        }
    }
}
