import GRDB

/// Accesses for the hot paths. GRDB's `read` and `write` wrap each call in BEGIN/COMMIT statements that it
/// compiles anew every time; on the miss path (a lookup and a commit per request) that compiling showed up in
/// profiles.
extension DatabasePool {
    /// A read made of ONE statement, run in autocommit mode: SQLite gives a single statement a consistent
    /// snapshot of its own, so no explicit transaction (and no BEGIN/COMMIT to compile) is needed.
    func readOneStatement<T>(_ body: (Database) throws -> T) throws -> T {
        try unsafeRead(body)
    }

    /// `write`, with BEGIN IMMEDIATE and COMMIT kept as cached statements of the writer connection.
    func writeTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        try writeWithoutTransaction { db in
            try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
            do {
                let result = try body(db)
                try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
                return result
            } catch {
                // GRDB refuses to leave a write access with a transaction open; a failed COMMIT may leave one.
                if db.isInsideTransaction { try? db.rollback() }
                throw error
            }
        }
    }
}
