import Backends

/// The store faults a chaos run injects itself, as shell commands, on the embedded stores of its data
/// directory: databases locked for a moment; with `--long-faults`, for `seconds` each (the disk half as
/// long): the data disk full, the databases down, the database files, the image store and the outbox made
/// immutable, beside a worker frozen (and the local broker SIGKILLed for as long, `FaultInjector`); the account worker's
/// clock steps. (The production stores' long faults are the operator's `--fault` commands.)
enum ChaosFaults {
    /// The short faults: one embedded database locked for 1–3 s, under SQLite's busy timeout.
    static func short(_ stores: BackendOptions) -> [FaultInjector.Fault] {
        databases(stores).isEmpty ? [] : [.lockDatabase(databases(stores))]
    }

    /// The long faults, each lasting `seconds` (the full disk half as long).
    static func long(_ stores: BackendOptions, seconds: Int) -> [FaultInjector.Fault] {
        let data = stores.dataDirectory
        var faults: [FaultInjector.Fault] = [.freezeWorker(seconds: seconds),
                                             .command(name: "data disk full for \(seconds / 2) s", shell: fill(data, seconds: seconds / 2))]
        let databases = databases(stores)
        if !databases.isEmpty {
            faults.append(.command(name: "database down for \(seconds) s", shell: lock(databases, seconds: seconds)))
            faults.append(.command(name: "store files unwritable for \(seconds) s",
                                   shell: immutable(databases.map { quoted($0) + "*" }, seconds: seconds)))
        }
        if stores.images == nil {
            faults.append(.command(name: "image store failing for \(seconds) s", shell: immutable([quoted(data + "/objects")], seconds: seconds)))
        }
        if stores.mail == nil {
            faults.append(.command(name: "mail server refusing for \(seconds) s", shell: immutable([quoted(data + "/outbox")], seconds: seconds)))
        }
        return faults
    }

    /// The account worker's wall clock stepped by ±150 s (under the 300 s seal window and beyond the 120 s saga deadline)
    /// and by ±10 minutes, each held for `seconds` (at most 30: six sweeps of its sagas), then back to real time.
    static func clockSteps(seconds: Int) -> [FaultInjector.Fault] {
        [150, -150, 600, -600].map { .stepClock(offset: $0, hold: min(seconds, 30)) }
    }

    /// A command holding an exclusive lock on each of `databases` for `seconds` (writers get SQLITE_BUSY);
    /// it fails when a lock could not be taken within 10 s.
    static func lock(_ databases: [String], seconds: Int) -> String {
        "locks=(); " + databases.map { "(echo '.timeout 10000'; echo 'BEGIN EXCLUSIVE;'; sleep \(seconds); echo 'COMMIT;') | sqlite3 -bail \(quoted($0)) & locks+=($!); " }
            .joined() + "for lock in \"${locks[@]}\"; do wait $lock || exit 1; done"
    }

    /// The embedded databases among the stores.
    private static func databases(_ stores: BackendOptions) -> [String] {
        [(stores.accounts, "accounts.sqlite"), (stores.profiles, "profiles.sqlite")]
            .filter { $0.0 == nil }.map { stores.dataDirectory + "/" + $0.1 }
    }

    /// A command that makes the `files` (shell words) and everything under them immutable for `seconds`.
    private static func immutable(_ files: [String], seconds: Int) -> String {
        let words = files.joined(separator: " ")
        return "targets=(\(words)); trap 'chattr -R -i \"${targets[@]}\"' EXIT; chattr -R +i \"${targets[@]}\" && sleep \(seconds)"
    }

    /// A command that fills the file system of `directory` to the last block for `seconds` (topping it up
    /// each second, as the workers free space), then frees it; it fails when the disk did not fill.
    private static func fill(_ directory: String, seconds: Int) -> String {
        let filler = quoted(directory + "/.disk-full")
        let topUp = "head -c 64M /dev/zero >> \(filler) 2>/dev/null"
        return "trap \"rm -f \(filler)\" EXIT; fallocate -l $(( $(stat -f -c '%a * %S' \(quoted(directory))) - 1048576 )) \(filler); \(topUp)"
            + "; [ \"$(stat -f -c %a \(quoted(directory)))\" = 0 ] || exit 1; for second in $(seq \(seconds)); do sleep 1; \(topUp); done; true"
    }

    /// `text` as one shell word.
    private static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
