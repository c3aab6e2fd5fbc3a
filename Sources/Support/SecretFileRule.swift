#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which secret files put in place by someone else a process may read: a key `registrar keys` made, a Kubernetes
/// Secret volume, a systemd credential, a bind-mounted directory.
///
/// The file (after symbolic links) must be one nobody else can read or change:
/// - owned by this process's user or by root;
/// - nothing for others; for its group at most read, and only when that group is this process's own group
///   (what kubelet makes of a Secret with `defaultMode: 0400` when the pod's `fsGroup` is its `runAsGroup`:
///   `0440 root:<gid>`; kubernetes/kubernetes#57923).
///
/// Each directory it is reached through (the one named, and the real one after symbolic links) must not let anyone
/// but its owner add, remove or rename entries: no write for group or others, unless the sticky bit is set and the
/// entry read there is owned by root or this process's user (kubelet's secret volume root is `drwxrwsrwt`, its
/// files root-owned links into a `02755` directory; a name planted there by another user is refused). Others may
/// list a directory: key names are not secret.
public struct SecretFileRule: Sendable {
    /// What `stat` or `lstat` says of a file or directory.
    public struct Status: Sendable, Equatable {
        public var mode: mode_t
        public var owner: uid_t
        public var group: gid_t

        public init(mode: mode_t, owner: uid_t, group: gid_t) {
            self.mode = mode
            self.owner = owner
            self.group = group
        }

        init(_ info: stat) { self.init(mode: info.st_mode, owner: info.st_uid, group: info.st_gid) }

        var permissions: mode_t { mode & 0o7777 }
        var isDirectory: Bool { mode & S_IFMT == S_IFDIR }
    }

    /// The user and group this process reads as.
    public var user: uid_t
    public var group: gid_t

    public init(user: uid_t, group: gid_t) {
        self.user = user
        self.group = group
    }

    /// The rule for this process.
    public static var current: SecretFileRule { SecretFileRule(user: geteuid(), group: getegid()) }

    /// Refuses `file` (the final file at `path`) unless the rule above lets this process read it.
    public func check(file: Status, at path: String) throws(PrivateFileError) {
        guard file.owner == user || file.owner == 0 else { throw .foreignOwner(path, owner: file.owner) }
        let groupAccess = file.permissions & 0o070
        guard file.permissions & 0o007 == 0, groupAccess == 0 || groupAccess == 0o040 else {
            throw .tooWide(path, mode: file.permissions, isDirectory: false)
        }
        guard groupAccess == 0 || file.group == group else { throw .foreignGroup(path, group: file.group, processGroup: group) }
    }

    /// Refuses `directory` unless nobody but its owner can replace `entry`, the entry read in it.
    public func check(directory: Status, at path: String, holding entry: Status) throws(PrivateFileError) {
        guard directory.owner == user || directory.owner == 0 else { throw .foreignOwner(path, owner: directory.owner) }
        guard directory.permissions & 0o022 != 0 else { return }
        guard directory.permissions & S_ISVTX != 0, entry.owner == user || entry.owner == 0 else {
            throw .tooWide(path, mode: directory.permissions, isDirectory: true)
        }
    }

    /// Checks the secret file at `path` and the directories it is reached through; a missing file passes (the
    /// reader reports it).
    public func check(_ path: String) throws(PrivateFileError) {
        var entry = stat()
        guard lstat(path, &entry) == 0 else {
            if errno == ENOENT { return }
            throw .unusable(path, String(cString: strerror(errno)))
        }
        let directory = PrivateFiles.parent(of: path)
        try check(directory: try Self.status(directory), at: directory, holding: Status(entry))
        var file = entry
        if entry.st_mode & S_IFMT == S_IFLNK {
            guard let resolved = realpath(path, nil) else { throw .unusable(path, String(cString: strerror(errno))) }
            let target = String(cString: resolved)
            free(resolved)
            file = try Self.fileStatus(target)
            let real = PrivateFiles.parent(of: target)
            try check(directory: try Self.status(real), at: real, holding: Status(file))
        }
        try check(file: Status(file), at: path)
    }

    /// Checks the secret file at `path` alone, not the directories it is reached through (a user's own file in an
    /// ordinary directory); a missing file passes.
    public func checkFile(_ path: String) throws(PrivateFileError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { return }
            throw .unusable(path, String(cString: strerror(errno)))
        }
        try check(file: Status(info), at: path)
    }

    private static func status(_ path: String) throws(PrivateFileError) -> Status { Status(try fileStatus(path)) }

    private static func fileStatus(_ path: String) throws(PrivateFileError) -> stat {
        var info = stat()
        guard stat(path, &info) == 0 else { throw .unusable(path, String(cString: strerror(errno))) }
        return info
    }
}
