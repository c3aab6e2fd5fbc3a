import Domain
import Foundation

/// The transactional outbox of one SQL store (``Outbox``): a table of messages, numbered in the order kept, that the
/// store's writes add in their own transaction (`keep`) and the worker owning the store publishes and removes. The
/// account database's is `account_outbox`, the profile database's `profile_outbox` (two names, since one database
/// may hold both schemas). The account database keeps a second one, `effect_outbox`, of the side effects its sagas'
/// moves keep (``SideEffects``: a welcome mail), which the account worker performs instead of publishing.
public struct SQLOutbox: Outbox {
    private let database: any SQLDatabase
    private let table: String

    /// The outbox of the account database, whose schema is created or migrated first.
    public static func accounts(database: any SQLDatabase) throws(StoreError) -> SQLOutbox {
        try database.migrate(accountSchema)
        return SQLOutbox(database: database, table: accountsTable)
    }

    /// The outbox of the profile database, whose schema is created or migrated first.
    public static func profiles(database: any SQLDatabase) throws(StoreError) -> SQLOutbox {
        try database.migrate(SQLProfileStore.schema)
        return SQLOutbox(database: database, table: profilesTable)
    }

    /// The side-effect outbox of the account database, whose schema is created or migrated first.
    public static func effects(database: any SQLDatabase) throws(StoreError) -> SQLEffectOutbox {
        try database.migrate(accountSchema)
        return SQLEffectOutbox(outbox: SQLOutbox(database: database, table: effectsTable), database: database)
    }

    static let accountsTable = "account_outbox"
    static let effectsTable = "effect_outbox"
    static let profilesTable = "profile_outbox"

    public func pending(limit: Int) throws(StoreError) -> [OutboxMessage] { try pending(limit: limit, where: "TRUE", []) }

    /// The oldest messages for which `condition` holds, at most `limit`.
    func pending(limit: Int, where condition: String, _ arguments: [any SQLValueConvertible]) throws(StoreError) -> [OutboxMessage] {
        try database.withSession { (db) throws(SQLError) in
            try db.query("SELECT seq, topic, message_key, type, payload FROM \(table) WHERE \(condition) ORDER BY seq LIMIT ?",
                         arguments + [limit]) { (row) throws(SQLError) -> OutboxMessage in
                let payload: String = try row[4]
                return OutboxMessage(sequence: try row[0], topic: try row[1], key: try row[2], type: try row[3], payload: Array(payload.utf8))
            }
        }
    }

    public func remove(_ messages: [OutboxMessage]) throws(StoreError) {
        guard !messages.isEmpty else { return }
        let placeholders = Array(repeating: "?", count: messages.count).joined(separator: ", ")
        try database.withSession { (db) throws(SQLError) in
            try db.execute("DELETE FROM \(table) WHERE seq IN (\(placeholders))", messages.map(\.sequence))
        }
    }

    /// Keeps `message` in `table`'s outbox, in `db`'s transaction (that of the change it announces).
    static func keep(_ message: OutboxMessage, in table: String, _ db: SQLSession) throws(SQLError) {
        try db.execute("INSERT INTO \(table) (topic, message_key, type, payload) VALUES (?, ?, ?, ?)",
                       [message.topic, message.key, message.type, String(decoding: message.payload, as: UTF8.self)])
    }

    /// Keeps the side effects `effects` in the account database's side-effect outbox, in `db`'s transaction (that of the
    /// saga's move causing them).
    static func keep(effects: [OutboxMessage], _ db: SQLSession) throws(SQLError) {
        for effect in effects { try keep(effect, in: effectsTable, db) }
    }

    /// The migration creating the outbox `table`, in SQLite's spelling or PostgreSQL's.
    static func migration(table: String, postgres: Bool) -> String {
        let sequence = postgres ? "seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY" : "seq INTEGER PRIMARY KEY AUTOINCREMENT"
        return """
            CREATE TABLE \(table) (
                \(sequence),
                topic TEXT NOT NULL,
                message_key TEXT NOT NULL,
                type TEXT NOT NULL,
                payload TEXT NOT NULL
            )\(postgres ? "" : " STRICT");
            """
    }
}

/// The account database's side-effect outbox (`effect_outbox`), whose effects the account workers' relays claim before
/// performing them (``ClaimedOutbox``): a claim is the relay's name and the instant (Unix seconds) it runs out, set only
/// where no other relay's claim holds, in one statement (PostgreSQL re-reads the condition of a row another
/// transaction changed meanwhile; SQLite writes one at a time).
public struct SQLEffectOutbox: ClaimedOutbox {
    let outbox: SQLOutbox
    let database: any SQLDatabase

    public func pending(limit: Int) throws(StoreError) -> [OutboxMessage] { try outbox.pending(limit: limit) }

    public func remove(_ messages: [OutboxMessage]) throws(StoreError) { try outbox.remove(messages) }

    public func claimable(for relay: String, now: Date, limit: Int) throws(StoreError) -> [OutboxMessage] {
        try outbox.pending(limit: limit, where: Self.unheld, [relay, now.timeIntervalSince1970])
    }

    public func claim(_ message: OutboxMessage, for relay: String, until expiry: Date, now: Date) throws(StoreError) -> Bool {
        try database.withSession { (db) throws(SQLError) in
            try db.execute("UPDATE \(SQLOutbox.effectsTable) SET claimed_by = ?, claimed_until = ? WHERE seq = ? AND \(Self.unheld)",
                           [relay, expiry.timeIntervalSince1970, message.sequence, relay, now.timeIntervalSince1970]) == 1
        }
    }

    /// No relay but the one named by the first argument holds the effect at the instant of the second.
    private static let unheld = "(claimed_by IS NULL OR claimed_by = ? OR claimed_until < ?)"

    public func release(_ message: OutboxMessage, for relay: String) throws(StoreError) {
        try database.withSession { (db) throws(SQLError) in
            _ = try db.execute("UPDATE \(SQLOutbox.effectsTable) SET claimed_by = NULL, claimed_until = NULL WHERE seq = ? AND claimed_by = ?",
                               [message.sequence, relay])
        }
    }

    /// The migration giving `effect_outbox` its claims, in SQLite's spelling or PostgreSQL's.
    static func claims(real: String) -> String {
        """
        ALTER TABLE \(SQLOutbox.effectsTable) ADD COLUMN claimed_by TEXT;
        ALTER TABLE \(SQLOutbox.effectsTable) ADD COLUMN claimed_until \(real);
        """
    }
}
