import Domain
import Foundation
@testable import SQLStores
@testable import TestSupport
import Testing

/// A SQLite database whose files stop taking writes fails each call transiently, so a worker waits,
/// and works again once they take writes: it never crashes the process. (Root only: `chattr` and `mount`.)
@Suite(.tags(.unit), .serialized) struct SQLiteFaultTests {
    let migrations = ["CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL) STRICT;"]

    /// Immutable files (`chattr +i`) used to kill the process with SIGBUS at the next write to the
    /// WAL index, mapped from `-shm`, by the open connection as well as by a new one.
    @Test(.enabled(if: getuid() == 0, "chattr needs root"))
    func immutableFilesFailTransientlyInsteadOfCrashing() throws {
        try withTemporaryDirectory { directory in
            let path = "\(directory)/db.sqlite"
            let database = try SQLiteDatabase(path: path)
            try database.migrate("items", migrations)
            try insert("before", into: database)
            let files = [path, path + "-wal", path + "-shm"]
            try runCommand("/usr/bin/chattr", ["+i"] + files)
            defer { _ = try? runCommand("/usr/bin/chattr", ["-i"] + files) }
            let open = #expect(throws: StoreError.self) { try insert("while immutable", into: database) }
            #expect(open?.kind == .transient)
            #expect(open?.message.contains("cannot write") == true, "\(open?.message ?? "")")
            let new = #expect(throws: StoreError.self) { try SQLiteDatabase(path: path) }
            #expect(new?.kind == .transient)

            try runCommand("/usr/bin/chattr", ["-i"] + files)
            try insert("after", into: database)
            #expect(try count(in: database) == .integer(2))
        }
    }

    /// A full disk (a 1 MiB tmpfs filled up) fails writes with SQLITE_FULL, which is transient.
    @Test(.enabled(if: getuid() == 0, "mount needs root"))
    func aFullDiskFailsTransiently() throws {
        try withSmallFileSystem { mount in
            let database = try SQLiteDatabase(path: "\(mount)/db.sqlite")
            try database.migrate("items", migrations)
            let filler = "\(mount)/filler"
            fill(filler)
            let full = #expect(throws: StoreError.self) {
                for index in 0..<2_000 { try insert(String(repeating: "x", count: 1_000) + "\(index)", into: database) }
            }
            #expect(full?.kind == .transient, "\(full?.message ?? "")")

            try FileManager.default.removeItem(atPath: filler)
            try insert("after", into: database)
        }
    }

    private func insert(_ name: String, into database: SQLiteDatabase) throws(StoreError) {
        try database.transaction { (db) throws(SQLError) in try db.execute("INSERT INTO items (name) VALUES (?)", [.text(name)]) }
    }

    private func count(in database: SQLiteDatabase) throws(StoreError) -> SQLValue {
        try database.withConnection { (db) throws(SQLError) in try db.query("SELECT count(*) FROM items", [])[0].values[0] }
    }

    /// Writes zeros to a new file at `path` until the disk is full.
    private func fill(_ path: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer { close(fd) }
        let block = [UInt8](repeating: 0, count: 4096)
        while write(fd, block, block.count) > 0 {}
    }
}
