import GRDB
import GRDBSQLite
import HTTPWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The SQL of `index.sqlite`: one row per stored variant. Callers bring the transaction.
///
/// Bodies up to `inlineMaxBytes` sit in the `body` column; larger ones are files named after `body_id`
/// (`body IS NULL`). `charge` is what a row costs the disk budget; triggers keep the one-row `totals` table equal to
/// the sums, so start-up reads two numbers instead of scanning a million rows.
enum StoreIndex {
    static func migrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE entry (
                        id INTEGER PRIMARY KEY,
                        key TEXT NOT NULL,
                        variant TEXT NOT NULL,
                        url TEXT NOT NULL,
                        route TEXT NOT NULL,
                        head BLOB NOT NULL,
                        vary BLOB NOT NULL,
                        request_time INTEGER NOT NULL,
                        response_time INTEGER NOT NULL,
                        body_size INTEGER NOT NULL,
                        body_id INTEGER NOT NULL,
                        body_crc INTEGER NOT NULL,
                        body BLOB,
                        charge INTEGER NOT NULL,
                        last_access INTEGER NOT NULL,
                        created INTEGER NOT NULL
                    );
                    CREATE UNIQUE INDEX entry_by_key ON entry(key, variant);
                    CREATE INDEX entry_by_url ON entry(url);
                    CREATE INDEX entry_by_route ON entry(route);
                    CREATE INDEX entry_by_last_access ON entry(last_access);
                    CREATE TABLE totals (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        entries INTEGER NOT NULL,
                        bytes INTEGER NOT NULL
                    );
                    INSERT INTO totals (id, entries, bytes) VALUES (1, 0, 0);
                    CREATE TRIGGER entry_inserted AFTER INSERT ON entry BEGIN
                        UPDATE totals SET entries = entries + 1, bytes = bytes + NEW.charge WHERE id = 1;
                    END;
                    CREATE TRIGGER entry_deleted AFTER DELETE ON entry BEGIN
                        UPDATE totals SET entries = entries - 1, bytes = bytes - OLD.charge WHERE id = 1;
                    END;
                    CREATE TRIGGER entry_recharged AFTER UPDATE OF charge ON entry BEGIN
                        UPDATE totals SET bytes = bytes - OLD.charge + NEW.charge WHERE id = 1;
                    END;
                    """)
        }
        return migrator
    }

    // MARK: Reads

    private static let entryColumns = """
        key, variant, url, route, head, vary, request_time, response_time, body_size, body_id, body_crc, \
        body IS NULL
        """

    /// Every variant of `key`, newest response first.
    static func variants(_ db: Database, key: String, withInlineBodies: Bool) throws -> [IndexedVariant] {
        let columns = withInlineBodies ? entryColumns + ", body" : entryColumns
        let statement = try db.cachedStatement(
            sql: "SELECT \(columns) FROM entry WHERE key = ? ORDER BY response_time DESC, id DESC")
        return try Row.fetchAll(statement, arguments: [key]).compactMap { decode($0, withInlineBody: withInlineBodies) }
    }

    /// One variant with its inline body, if stored.
    static func variant(_ db: Database, key: String, variant: String) throws -> IndexedVariant? {
        let statement = try db.cachedStatement(
            sql: "SELECT \(entryColumns), body FROM entry WHERE key = ? AND variant = ?")
        return try Row.fetchOne(statement, arguments: [key, variant]).flatMap { decode($0, withInlineBody: true) }
    }

    /// Entries whose URL starts with `urlPrefix`, by URL.
    static func entries(_ db: Database, urlPrefix: String?, limit: Int) throws -> [StoredEntry] {
        let rows: [Row]
        if let urlPrefix, !urlPrefix.isEmpty {
            // A range on the URL index; U+10FFFF sorts after every character a URL can hold.
            rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT \(entryColumns) FROM entry WHERE url >= ? AND url < ?
                    ORDER BY url, key, variant LIMIT ?
                    """,
                arguments: [urlPrefix, urlPrefix + "\u{10FFFF}", limit])
        } else {
            rows = try Row.fetchAll(
                db, sql: "SELECT \(entryColumns) FROM entry ORDER BY url, key, variant LIMIT ?", arguments: [limit])
        }
        return rows.compactMap { decode($0, withInlineBody: false)?.entry }
    }

    static func totals(_ db: Database) throws -> (entries: Int, bytes: Int) {
        let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT entries, bytes FROM totals WHERE id = 1"))
        return (row?[0] ?? 0, row?[1] ?? 0)
    }

    static func latestAccess(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT max(last_access) FROM entry") ?? 0
    }

    /// The ids of every body kept in a file, for the orphan sweep.
    static func fileBodyIDs(_ db: Database) throws -> Set<UInt64> {
        var ids = Set<UInt64>()
        let cursor = try Int64.fetchCursor(db, sql: "SELECT body_id FROM entry WHERE body IS NULL")
        while let id = try cursor.next() { ids.insert(UInt64(bitPattern: id)) }
        return ids
    }

    private static func decode(_ row: Row, withInlineBody: Bool) -> IndexedVariant? {
        let headBlob: Data = row[4]
        let varyBlob: Data = row[5]
        guard let head = HeadCodec.decodeHead(Array(headBlob)),
            let vary = HeadCodec.decodeHeaders(Array(varyBlob))
        else { return nil }
        var entry = StoredEntry(
            key: row[0], variant: row[1], url: row[2], route: row[3], head: head, varyRequestHeaders: vary,
            requestTime: row[6], responseTime: row[7], bodySize: row[8])
        entry.bodyID = UInt64(bitPattern: row[9])
        let crc: Int64 = row[10]
        let isInline = !(row[11] as Bool)
        var inlineBody: [UInt8]?
        if withInlineBody, isInline {
            let blob: Data? = row[12]
            inlineBody = blob.map(Array.init) ?? []
        }
        return IndexedVariant(
            entry: entry, crc: UInt32(truncatingIfNeeded: crc), isInline: isInline, inlineBody: inlineBody)
    }

    // MARK: Writes

    /// Stores a committed body's row, replacing any row for the same key and variant; returns the replaced one.
    /// With `replacing` false the caller knows there is none, and the look-up for it is skipped.
    static func insert(_ db: Database, _ job: CommitJob, now: Int64, replacing: Bool = true) throws -> RemovedRow? {
        let entry = job.entry
        let replaced = replacing ? try delete(db, .variant(key: entry.key, variant: entry.variant)).first : nil
        let head = HeadCodec.encode(entry.head)
        let vary = HeadCodec.encode(entry.varyRequestHeaders)
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO entry (key, variant, url, route, head, vary, request_time, response_time, body_size,
                    body_id, body_crc, body, charge, last_access, created)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        // Bound with SQLite's own calls: this runs once per stored response, and GRDB's arguments box every value
        // (and copy each blob into `Data`) before binding it, which profiles showed as a tenth of a miss's CPU.
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        bind(handle, 1, entry.key)
        bind(handle, 2, entry.variant)
        bind(handle, 3, entry.url)
        bind(handle, 4, entry.route)
        bind(handle, 5, blob: head)
        bind(handle, 6, blob: vary)
        sqlite3_bind_int64(handle, 7, entry.requestTime)
        sqlite3_bind_int64(handle, 8, entry.responseTime)
        sqlite3_bind_int64(handle, 9, Int64(entry.bodySize))
        sqlite3_bind_int64(handle, 10, Int64(bitPattern: entry.bodyID))
        sqlite3_bind_int64(handle, 11, Int64(job.crc))
        if case .inline(let bytes) = job.body {
            bind(handle, 12, blob: bytes)
        } else {
            sqlite3_bind_null(handle, 12)
        }
        sqlite3_bind_int64(
            handle, 13, Int64(charge(entry, isInline: job.isInline, headBytes: head.count, varyBytes: vary.count)))
        sqlite3_bind_int64(handle, 14, now)
        sqlite3_bind_int64(handle, 15, now)
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
                sql: statement.sql)
        }
        return replaced
    }

    /// SQLite copies the bytes (`SQLITE_TRANSIENT`), so they need only live through the call.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private static func bind(_ handle: OpaquePointer?, _ index: Int32, _ text: String) {
        sqlite3_bind_text(handle, index, text, -1, transient)
    }

    private static func bind(_ handle: OpaquePointer?, _ index: Int32, blob bytes: [UInt8]) {
        // An empty array may have no storage, and a null pointer would bind NULL instead of an empty blob.
        guard !bytes.isEmpty else {
            sqlite3_bind_zeroblob(handle, index, 0)
            return
        }
        _ = bytes.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), transient) }
    }

    /// What a row costs the disk budget: the body (a file rounded up to whole 4 KiB blocks), the blobs,
    /// and the text columns twice (row and index).
    static func charge(_ entry: StoredEntry, isInline: Bool, headBytes: Int, varyBytes: Int) -> Int {
        let body = isInline ? entry.bodySize : (entry.bodySize + 4095) / 4096 * 4096
        let text = entry.key.utf8.count + entry.variant.utf8.count + entry.url.utf8.count + entry.route.utf8.count
        return body + headBytes + varyBytes + 2 * text + 96
    }

    /// Replaces a variant's head and times after a 304; false when the variant is gone.
    static func refresh(
        _ db: Database, key: String, variant: String, head: ResponseHead, requestTime: Int64, responseTime: Int64
    ) throws -> Bool {
        let blob = HeadCodec.encode(head)
        try db.cachedStatement(
            sql: """
                UPDATE entry SET charge = charge - length(head) + ?, head = ?, request_time = ?, response_time = ?
                WHERE key = ? AND variant = ?
                """
        ).execute(arguments: [blob.count, Data(blob), requestTime, responseTime, key, variant])
        return db.changesCount > 0
    }

    /// Records batched hits; an access time only moves forward.
    static func touch(_ db: Database, _ accesses: [VariantRef: Int64]) throws {
        guard !accesses.isEmpty else { return }
        let statement = try db.cachedStatement(
            sql: "UPDATE entry SET last_access = max(last_access, ?) WHERE key = ? AND variant = ?")
        for (ref, time) in accesses {
            try statement.execute(arguments: [time, ref.key, ref.variant])
        }
    }

    /// Deletes the rows `filter` selects.
    static func delete(_ db: Database, _ filter: RowFilter) throws -> [RemovedRow] {
        let condition: String
        let arguments: StatementArguments
        switch filter {
        case .key(let key): (condition, arguments) = ("key = ?", [key])
        case .url(let url): (condition, arguments) = ("url = ?", [url])
        case .route(let route): (condition, arguments) = ("route = ?", [route])
        case .variant(let key, let variant): (condition, arguments) = ("key = ? AND variant = ?", [key, variant])
        case .body(let key, let variant, let bodyID):
            (condition, arguments) = (
                "key = ? AND variant = ? AND body_id = ?", [key, variant, Int64(bitPattern: bodyID)]
            )
        }
        let removed = try Row.fetchAll(
            db.cachedStatement(sql: "SELECT key, body_id, body IS NULL FROM entry WHERE \(condition)"),
            arguments: arguments
        ).map { RemovedRow(key: $0[0], bodyID: UInt64(bitPattern: $0[1]), hasFile: $0[2]) }
        if !removed.isEmpty {
            try db.cachedStatement(sql: "DELETE FROM entry WHERE \(condition)").execute(arguments: arguments)
        }
        return removed
    }

    /// Deletes every row; returns how many there were.
    static func deleteAll(_ db: Database) throws -> Int {
        try db.execute(sql: "DELETE FROM entry")
        return db.changesCount
    }

    /// Deletes least-recently-used rows until the disk charge is at most `target`, if it is above `limit`;
    /// `totals` are the table's as they stand. Returns the rows deleted and the totals after.
    static func evict(
        _ db: Database, totals: (entries: Int, bytes: Int), above limit: Int, downTo target: Int
    ) throws -> (evicted: [RemovedRow], totals: (entries: Int, bytes: Int)) {
        var bytes = totals.bytes
        guard bytes > limit else { return ([], totals) }
        var evicted: [RemovedRow] = []
        let oldest = try db.cachedStatement(
            sql: "SELECT id, key, body_id, body IS NULL, charge FROM entry ORDER BY last_access, id LIMIT 256")
        let deleteRow = try db.cachedStatement(sql: "DELETE FROM entry WHERE id = ?")
        while bytes > target {
            let rows = try Row.fetchAll(oldest)
            if rows.isEmpty { break }
            for row in rows where bytes > target {
                try deleteRow.execute(arguments: [row[0] as Int64])
                evicted.append(RemovedRow(key: row[1], bodyID: UInt64(bitPattern: row[2]), hasFile: row[3]))
                bytes -= row[4] as Int
            }
        }
        return (evicted, (totals.entries - evicted.count, bytes))
    }
}
