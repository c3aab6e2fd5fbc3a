import Domain
import Foundation

extension SQLiteDatabase {
    /// Moves the rows of the SQLite file at `path` — stores once kept in a file of their own — into this
    /// database, once, and renames the file `<path>.imported`. `prepare` first brings the file's schemas up
    /// to date, and this database's must match them (same tables, same columns in the same order). In one
    /// transaction that holds this database's write lock, so that processes opening it at once import the
    /// file once; a row whose key is here already stays as it is. Nothing happens when there is no file.
    public func importRows(ofFileAt path: String, preparing prepare: (SQLiteDatabase) throws(StoreError) -> Void) throws(StoreError) {
        var renamed = false
        do {
            try transaction { (connection) throws(SQLError) in
                guard FileManager.default.fileExists(atPath: path) else { return }
                do {
                    try Self.copyRows(of: path, preparing: prepare, into: connection)
                    try FileManager.default.moveItem(atPath: path, toPath: path + ".imported")
                    renamed = true
                } catch let error as SQLError {
                    throw error
                } catch let error as StoreError {
                    throw SQLError(passing: error)
                } catch {
                    throw SQLError(.permanent, "cannot import \(path): \(error)")
                }
            }
        } catch {
            if renamed { try? FileManager.default.moveItem(atPath: path + ".imported", toPath: path) }
            throw error
        }
    }

    /// Copies every row of every table of the file at `path` but its migration counts into `connection`'s
    /// tables of the same names, in the order the tables were made (a referenced table before its references).
    private static func copyRows(of path: String, preparing prepare: (SQLiteDatabase) throws(StoreError) -> Void,
                                 into connection: any SQLConnection) throws {
        let old = try SQLiteDatabase(path: path)
        try prepare(old)
        try old.withConnection { (source) throws(SQLError) in
            let tables = try source.query("""
                SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
                AND name <> 'registrar_migrations' ORDER BY rowid
                """, [])
            for case .text(let table)? in tables.map(\.values.first) {
                let name = "\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
                for row in try source.query("SELECT * FROM \(name)", []) {
                    let placeholders = Array(repeating: "?", count: row.values.count).joined(separator: ", ")
                    try connection.execute("INSERT OR IGNORE INTO \(name) VALUES (\(placeholders))", row.values)
                }
            }
        }
    }
}
