import Domain
import Foundation
@testable import SQLStores
@testable import TestSupport
import Testing

/// SQLite databases hold password hashes: created 0600 (their -wal and -shm too) in 0700 directories, and
/// refused, naming the file and its mode, when they or their directory are open to group or others.
@Suite(.tags(.unit)) struct SQLiteFileModeTests {
    @Test func createsTheDatabaseAndItsLogPrivate() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/new/db.sqlite"
            let database = try SQLiteDatabase(path: path)
            try database.execute(script: "CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1)")
            #expect(try mode(of: directory + "/new") == 0o700)
            for file in [path, path + "-wal", path + "-shm"] { #expect(try mode(of: file) == 0o600, "\(file)") }
        }
    }

    @Test func refusesADatabaseOpenToOthers() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/db.sqlite"
            _ = try SQLiteDatabase(path: path)
            chmod(path, 0o644)
            let error = #expect(throws: StoreError.self) { try SQLiteDatabase(path: path) }
            #expect(error?.kind == .permanent)
            #expect(error?.message.contains("\(path) has mode 0644") == true, "\(String(describing: error))")
        }
    }

    @Test func refusesADatabaseInADirectoryOpenToOthers() throws {
        try withTemporaryDirectory { directory in
            let shared = directory + "/shared"
            try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
            let error = #expect(throws: StoreError.self) { try SQLiteDatabase(path: shared + "/db.sqlite") }
            #expect(error?.message.contains("\(shared) has mode 0755") == true, "\(String(describing: error))")
            #expect(!FileManager.default.fileExists(atPath: shared + "/db.sqlite"))
        }
    }

    private func mode(of path: String) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as! NSNumber).intValue
    }
}
