import Foundation
import Support
import WorkerAssembly

/// `registrar keys distribute`: copies each process's keys from the key directory into a directory of its own, which
/// its container mounts whole; run again after every rotation (a running process follows the renamed files).
enum KeyDistributionCommand {
    static let spec = CommandSpec(
        name: "registrar keys distribute",
        summary: "copy each worker's and the gateway's keys into a directory of its own (DIR/<name>), to mount whole",
        usage: "--keys-dir KEYS --to DIR [--owner UID:GID]",
        options: KeysCommand.directoryOptions + [
            .value("to", "Directory to make a directory per process in: " + KeyDistribution.holders.joined(separator: ", ")),
            .value("owner", "uid:gid the directories and files are given to (the containers' user, e.g. 10001:10001; needs root)"),
        ])

    static func run(_ arguments: [String]) async -> ExitCode {
        await CommandLineTool.run(arguments, spec: spec) { parsed in
            let destination = try parsed.required("to")
            let owner = try parsed.value("owner").map { text throws(UsageError) -> (uid: uid_t, gid: gid_t) in
                let parts = text.split(separator: ":").compactMap { UInt32($0) }
                guard parts.count == 2 else { throw UsageError.invalid("--owner expects UID:GID, got '\(text)'", spec.helpText) }
                return (parts[0], parts[1])
            }
            let changes = try KeyDistribution.distribute(from: KeysCommand.directory(parsed), to: destination, owner: owner)
            changes.forEach { print($0) }
            print("\(changes.count) change\(changes.count == 1 ? "" : "s") in \(destination)")
            return .success
        }
    }
}
