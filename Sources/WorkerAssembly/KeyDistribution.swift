import Backends
import Domain
import EventTransport
import Foundation
import Support

/// A worker kind that holds keys of its flows besides its event keys (the account and code dispatch workers).
protocol HoldsFlowKeys {
    static var flowKeys: [WorkerKeys.Key] { get }
}

/// Which key files each process holds — its flows' keys, its role's event signing key, the public event keys of the
/// roles whose events it takes (and their previous ones during a rotation); the gateway those of the roles that answer
/// requests, its reply secret and the JWKS it serves — and their copy from the key directory
/// `registrar keys` keeps into a directory per process (`registrar keys distribute`), which a container mounts
/// whole, so that a rotation (a file replaced by rename in that directory) reaches the running process.
public enum KeyDistribution {
    /// The processes that hold keys: the four workers, the gateway and the operator's tools.
    public static var holders: [String] { TopicAccess.workers.map { $0.name } + [gateway, operatorTools] }
    public static let gateway = "gateway"
    /// The operator's tools (`registrar operator`): the operator role's event signing key, and the public event keys of the
    /// roles that answer requests.
    public static let operatorTools = "operator"

    /// The files of `holder` that the key directory at `directory` holds now, public ones first.
    public static func files(of holder: String, in directory: String) -> [String] {
        let events = EventKeyDirectory(directory)
        var publicFiles: [String]
        var secretFiles: [String]
        if let kind = TopicAccess.workers.first(where: { $0.name == holder }) {
            let trusted = Set(TopicAccess.routes(of: kind).flatMap { $0.type.producers }).sorted { $0.rawValue < $1.rawValue }
            publicFiles = trusted.flatMap { [events.publicPath(of: $0), events.previousPath(of: $0)] }
            secretFiles = [events.secretPath(of: kind.role)]
            let flowKeys = (kind as? any HoldsFlowKeys.Type)?.flowKeys ?? []
            secretFiles += flowKeys.map { directory + "/" + $0.file }
            if flowKeys.contains(where: { $0.file == KeyFileName.signing }) { publicFiles.append(directory + "/" + KeyFileName.jwks) }
        } else if holder == gateway || holder == operatorTools {
            let answering = WorkerRole.outcomeProducers.sorted { $0.rawValue < $1.rawValue }
            publicFiles = answering.flatMap { [events.publicPath(of: $0), events.previousPath(of: $0)] }
            secretFiles = holder == gateway ? [directory + "/" + KeyFileName.gatewayReply] : [events.secretPath(of: .operator)]
            if holder == gateway { publicFiles.append(directory + "/" + KeyFileName.jwks) }
        } else {
            return []
        }
        return (publicFiles + secretFiles).filter { FileManager.default.fileExists(atPath: $0) }.map { ($0 as NSString).lastPathComponent }
    }

    /// Copies into `destination/<holder>/` (made 0700) the files of each holder, every one 0600, replacing by rename
    /// only those that changed and removing those it no longer holds (a retired previous key); every holder's
    /// public keys before any secret key, so consumers accept a rotated key before its producer signs with it.
    /// With `owner`, the directories and files belong to that uid and gid (the containers' user). Returns what changed.
    public static func distribute(from directory: String, to destination: String, owner: (uid: uid_t, gid: gid_t)?) throws -> [String] {
        var changes: [String] = []
        let plans = holders.map { holder in (holder, destination + "/" + holder, files(of: holder, in: directory)) }
        try PrivateFiles.prepareDirectory(destination)
        for (_, target, _) in plans {
            try PrivateFiles.prepareDirectory(target)
            if let owner { guard chown(target, owner.uid, owner.gid) == 0 else { throw PrivateFileError.unusable(target, "chown: \(errno)") } }
        }
        let isSecret = { (name: String) in !name.hasSuffix(".pub") && name != KeyFileName.jwks }
        for secrets in [false, true] {
            for (holder, target, names) in plans {
                for name in names where isSecret(name) == secrets {
                    let contents = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))
                    guard FileManager.default.contents(atPath: target + "/" + name) != contents else { continue }
                    try replace(target + "/" + name, with: contents, owner: owner)
                    changes.append("\(holder)/\(name)")
                }
            }
        }
        for (holder, target, names) in plans {
            for stale in try FileManager.default.contentsOfDirectory(atPath: target) where !names.contains(stale) {
                try FileManager.default.removeItem(atPath: target + "/" + stale)
                changes.append("\(holder)/\(stale) removed")
            }
        }
        return changes
    }

    /// Writes `contents` to a new 0600 file beside `path` and renames it over `path`.
    private static func replace(_ path: String, with contents: Data, owner: (uid: uid_t, gid: gid_t)?) throws {
        let temporary = path + ".\(getpid()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, PrivateFiles.fileMode)
        guard fd >= 0 else { throw PrivateFileError.unusable(temporary, String(cString: strerror(errno))) }
        let written = contents.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let owned = owner.map { fchown(fd, $0.uid, $0.gid) == 0 } ?? true
        let synced = fsync(fd) == 0
        close(fd)
        guard written == contents.count, owned, synced, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw PrivateFileError.unusable(path, reason)
        }
    }
}
