import Installation
import Support

/// The small file system a long-fault run keeps its data directory on, so that it can fill it: a
/// file system already mounted there, or else a tmpfs of `size` it mounts itself (root only).
struct ChaosDisk {
    static let size = "256m"
    let directory: String
    /// Whether this run mounted it (and so unmounts it).
    let mounted: Bool

    /// Prepares `path` as an empty data directory on its own file system.
    init(at path: String) throws {
        directory = try LocalInstallation.prepare(path)
        mounted = try ChildProcess.run("/usr/bin/mountpoint", ["-q", directory]).status != 0
        guard mounted else { return }
        let (status, output) = try ChildProcess.run("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=\(Self.size),mode=0700",
                                                                       "registrar-chaos", directory], errors: .standardOutput)
        guard status == 0 else { throw InstallationError("could not mount a tmpfs on \(directory): \(output)") }
    }

    /// Unmounts the tmpfs this run mounted.
    func unmount() {
        guard mounted else { return }
        _ = try? ChildProcess.run("/usr/bin/umount", [directory], errors: .standardOutput)
    }
}
