import Foundation
import Support
@testable import TestSupport
import Testing

/// Which mounted secrets a worker reads: what kubelet makes of a Secret under `fsGroup`, what systemd and a
/// prepared directory give, and nothing another user could read, replace or plant.
@Suite(.tags(.unit)) struct SecretFileRuleTests {
    static let worker = SecretFileRule(user: 10001, group: 10001)
    static func file(_ mode: mode_t, owner: uid_t = 0, group: gid_t = 10001) -> SecretFileRule.Status {
        .init(mode: S_IFREG | mode, owner: owner, group: group)
    }
    static func directory(_ mode: mode_t, owner: uid_t = 0, group: gid_t = 10001) -> SecretFileRule.Status {
        .init(mode: S_IFDIR | mode, owner: owner, group: group)
    }
    static let link = SecretFileRule.Status(mode: S_IFLNK | 0o777, owner: 0, group: 10001)

    @Test func acceptsWhatKubeletMakesOfASecretUnderItsOwnFSGroup() throws {
        // /keys (tmpfs, drwxrwsrwt) → root-owned links into ..<timestamp> (drwxr-sr-x) → 0440 root:fsGroup files.
        try Self.worker.check(directory: Self.directory(0o3777), at: "/keys", holding: Self.link)
        try Self.worker.check(directory: Self.directory(0o2755), at: "/keys/..2026_12_01", holding: Self.file(0o440))
        try Self.worker.check(file: Self.file(0o440), at: "/keys/codes.hmac")
        try Self.worker.check(file: Self.file(0o640), at: "/keys/codes.hmac")
    }

    @Test func acceptsOwnPrivateFilesAndSystemdCredentials() throws {
        try Self.worker.check(directory: Self.directory(0o700, owner: 10001), at: "/keys", holding: Self.file(0o600, owner: 10001))
        try Self.worker.check(file: Self.file(0o600, owner: 10001), at: "/keys/codes.hmac")
        // $CREDENTIALS_DIRECTORY: 0500 directory, 0400 files, owned by the service's user.
        try Self.worker.check(directory: Self.directory(0o500, owner: 10001), at: "/run/credentials/x", holding: Self.file(0o400, owner: 10001))
        try Self.worker.check(file: Self.file(0o400, owner: 10001), at: "/run/credentials/x/codes.hmac")
        // A directory others may list but not change: names are not secret.
        try Self.worker.check(directory: Self.directory(0o755, owner: 10001), at: "/keys", holding: Self.file(0o600, owner: 10001))
    }

    @Test func refusesAFileAnotherUserOrGroupCouldRead() {
        #expect(throws: PrivateFileError.foreignGroup("/keys/k", group: 2000, processGroup: 10001)) {
            try Self.worker.check(file: Self.file(0o440, group: 2000), at: "/keys/k")
        }
        #expect(throws: PrivateFileError.tooWide("/keys/k", mode: 0o444, isDirectory: false)) {
            try Self.worker.check(file: Self.file(0o444), at: "/keys/k")
        }
        #expect(throws: PrivateFileError.tooWide("/keys/k", mode: 0o460, isDirectory: false)) {
            try Self.worker.check(file: Self.file(0o460), at: "/keys/k")
        }
        #expect(throws: PrivateFileError.foreignOwner("/keys/k", owner: 1000)) {
            try Self.worker.check(file: Self.file(0o400, owner: 1000), at: "/keys/k")
        }
    }

    @Test func refusesADirectoryWhereAnotherUserCouldReplaceOrPlantAKey() {
        #expect(throws: PrivateFileError.tooWide("/keys", mode: 0o777, isDirectory: true)) {
            try Self.worker.check(directory: Self.directory(0o777), at: "/keys", holding: Self.link)
        }
        #expect(throws: PrivateFileError.tooWide("/keys", mode: 0o770, isDirectory: true)) {
            try Self.worker.check(directory: Self.directory(0o770, owner: 10001), at: "/keys", holding: Self.file(0o600, owner: 10001))
        }
        // Sticky, but the name read there was made by another user (say, a previous event key planted in the volume).
        #expect(throws: PrivateFileError.tooWide("/keys", mode: 0o3777, isDirectory: true)) {
            try Self.worker.check(directory: Self.directory(0o3777), at: "/keys", holding: Self.file(0o600, owner: 1000))
        }
        #expect(throws: PrivateFileError.foreignOwner("/keys", owner: 1000)) {
            try Self.worker.check(directory: Self.directory(0o700, owner: 1000), at: "/keys", holding: Self.file(0o600, owner: 10001))
        }
    }

    /// The same on real files, laid out as kubelet does (as root, the test's files are this process's own).
    @Test(.enabled(if: getuid() == 0, "changes file owners"))
    func checksTheRealLayoutThroughItsLinks() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("secret-rule-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let timestamped = root + "/..2026_12_01_00_00_00.1"
        try FileManager.default.createDirectory(atPath: timestamped, withIntermediateDirectories: true)
        chmod(timestamped, 0o2755)
        #expect(FileManager.default.createFile(atPath: timestamped + "/codes.hmac", contents: Data("secret\n".utf8)))
        chmod(timestamped + "/codes.hmac", 0o440)
        try FileManager.default.createSymbolicLink(atPath: root + "/..data", withDestinationPath: "..2026_12_01_00_00_00.1")
        try FileManager.default.createSymbolicLink(atPath: root + "/codes.hmac", withDestinationPath: "..data/codes.hmac")
        chmod(root, 0o3777)
        try SecretFileRule.current.check(root + "/codes.hmac")

        #expect(FileManager.default.createFile(atPath: root + "/planted.pub", contents: Data("key\n".utf8)))
        chmod(root + "/planted.pub", 0o400)
        chown(root + "/planted.pub", 1000, 1000)
        #expect(throws: PrivateFileError.tooWide(root, mode: 0o3777, isDirectory: true)) { try SecretFileRule.current.check(root + "/planted.pub") }
        chmod(timestamped + "/codes.hmac", 0o444)
        #expect(throws: PrivateFileError.tooWide(root + "/codes.hmac", mode: 0o444, isDirectory: false)) {
            try SecretFileRule.current.check(root + "/codes.hmac")
        }
    }
}
