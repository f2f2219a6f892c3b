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
/// (`body IS NULL`). `charge` is what a row costs the disk budget; the one-row `totals` table holds the sums, so
/// start-up reads two numbers instead of scanning a million rows. Each write transaction keeps it equal to them
/// (`TotalsChange`, written once per transaction: a trigger updating it for each row cost 3-4 µs an insert).
///
/// Most rows' key is the primary key of their URL (`GET <url>`, `CacheKey.primary`), and the key index finds
/// those by URL as well; only the other rows (other methods, versioned or header keys) are in the URL index, which
/// is partial: a full one cost every insert one more B-tree insert, on a page of its own when URLs come in random
/// order (4-6 µs an insert, measured with SQLite alone on a million random URLs).
enum StoreIndex {
    /// The page size a new index is created with (see `CacheStore.init`).
    static let pageSize = 16 * 1024

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
        migrator.registerMigration("v2") { db in
            try db.execute(
                sql: """
                    DROP TRIGGER IF EXISTS entry_inserted;
                    DROP TRIGGER IF EXISTS entry_deleted;
                    DROP TRIGGER IF EXISTS entry_recharged;
                    DROP INDEX IF EXISTS entry_by_url;
                    CREATE INDEX entry_by_other_url ON entry(url) WHERE \(notPrimary);
                    UPDATE totals SET entries = (SELECT count(*) FROM entry),
                        bytes = (SELECT coalesce(sum(charge), 0) FROM entry) WHERE id = 1;
                    """)
        }
        return migrator
    }

    /// Rows whose key is not their URL's primary key: those in the partial URL index. Queries spell the condition
    /// exactly so, for SQLite to see that the index covers them.
    private static let notPrimary = "key <> 'GET ' || url"
    private static let isPrimary = "key = 'GET ' || url"

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

    /// Entries whose URL starts with `urlPrefix`, by URL (then key and variant), at most `limit`: the first ones of
    /// two ranges, each read in order from its index (primary-key rows from the key index, where their order is
    /// their URL's, the others from the partial URL index), merged here.
    static func entries(_ db: Database, urlPrefix: String?, limit: Int) throws -> [StoredEntry] {
        // U+10FFFF sorts after every character a URL can hold.
        let low = urlPrefix ?? "", high = (urlPrefix ?? "") + "\u{10FFFF}"
        let primary = try Row.fetchAll(
            db,
            sql: """
                SELECT \(entryColumns) FROM entry WHERE key >= 'GET ' || ? AND key < 'GET ' || ? AND \(isPrimary)
                ORDER BY key, variant LIMIT ?
                """,
            arguments: [low, high, limit]
        ).compactMap { decode($0, withInlineBody: false)?.entry }
        let others = try Row.fetchAll(
            db,
            sql: """
                SELECT \(entryColumns) FROM entry WHERE url >= ? AND url < ? AND \(notPrimary)
                ORDER BY url, key, variant LIMIT ?
                """,
            arguments: [low, high, limit]
        ).compactMap { decode($0, withInlineBody: false)?.entry }
        return mergeByURL(primary, others, limit: limit)
    }

    /// Two lists, each in (url, key, variant) order, as one in that order, cut at `limit`. Compared as UTF-8 bytes,
    /// as SQLite compares text.
    static func mergeByURL(_ first: [StoredEntry], _ second: [StoredEntry], limit: Int) -> [StoredEntry] {
        func precedes(_ a: StoredEntry, _ b: StoredEntry) -> Bool {
            for (x, y) in [(a.url, b.url), (a.key, b.key), (a.variant, b.variant)] where x != y {
                return x.utf8.lexicographicallyPrecedes(y.utf8)
            }
            return false
        }
        var merged: [StoredEntry] = []
        merged.reserveCapacity(min(limit, first.count + second.count))
        var i = first.startIndex
        var j = second.startIndex
        while merged.count < limit, i < first.endIndex || j < second.endIndex {
            if j == second.endIndex || (i < first.endIndex && !precedes(second[j], first[i])) {
                merged.append(first[i])
                i += 1
            } else {
                merged.append(second[j])
                j += 1
            }
        }
        return merged
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

    /// What a transaction's row changes do to `totals`, written once with `apply` before the transaction ends.
    struct TotalsChange {
        var entries = 0
        var bytes = 0
    }

    /// Writes `change` to `totals` and clears it.
    static func apply(_ db: Database, _ change: inout TotalsChange) throws {
        guard change.entries != 0 || change.bytes != 0 else { return }
        try db.cachedStatement(sql: "UPDATE totals SET entries = entries + ?, bytes = bytes + ? WHERE id = 1")
            .execute(arguments: [change.entries, change.bytes])
        change = TotalsChange()
    }

    /// Stores a committed body's row, replacing any row for the same key and variant; returns the replaced one.
    /// With `replacing` false the caller knows there is none, and the look-up for it is skipped.
    static func insert(
        _ db: Database, _ job: CommitJob, now: Int64, replacing: Bool = true, totals: inout TotalsChange
    ) throws -> RemovedRow? {
        let entry = job.entry
        let replaced =
            replacing ? try delete(db, .variant(key: entry.key, variant: entry.variant), totals: &totals).first : nil
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
        sqlite3_bind_int64(handle, 7, entry.requestTime)
        sqlite3_bind_int64(handle, 8, entry.responseTime)
        sqlite3_bind_int64(handle, 9, Int64(entry.bodySize))
        sqlite3_bind_int64(handle, 10, Int64(bitPattern: entry.bodyID))
        sqlite3_bind_int64(handle, 11, Int64(job.crc))
        let charge = charge(entry, isInline: job.isInline, headBytes: head.count, varyBytes: vary.count)
        sqlite3_bind_int64(handle, 13, Int64(charge))
        sqlite3_bind_int64(handle, 14, now)
        sqlite3_bind_int64(handle, 15, now)
        var inlineBody: [UInt8]?
        if case .inline(let bytes) = job.body { inlineBody = bytes }
        // Text and blobs are bound in place and stepped while still pinned: SQLite copies them into the row it
        // builds anyway, and a copy at binding besides (`SQLITE_TRANSIENT`) was an allocation and a memcpy per column,
        // the body's among them.
        let code = withText(handle, 1, entry.key) {
            withText(handle, 2, entry.variant) {
                withText(handle, 3, entry.url) {
                    withText(handle, 4, entry.route) {
                        withBlob(handle, 5, head) {
                            withBlob(handle, 6, vary) {
                                withBlob(handle, 12, inlineBody) { sqlite3_step(handle) }
                            }
                        }
                    }
                }
            }
        }
        // From here the statement's text and blob bindings point at memory no longer pinned: nothing may read them
        // (no `sqlite3_expanded_sql` in this error path) before the deferred reset clears them.
        guard code == SQLITE_DONE else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
                sql: statement.sql)
        }
        totals.entries += 1
        totals.bytes += charge
        return replaced
    }

    /// Binds `text` to parameter `index` without a copy (`SQLITE_STATIC`) and runs `body` (which steps the
    /// statement) while its bytes are pinned. The caller resets the statement and clears its bindings afterwards.
    private static func withText<Result>(
        _ handle: OpaquePointer?, _ index: Int32, _ text: String, _ body: () -> Result
    ) -> Result {
        text.withCString { pointer in
            sqlite3_bind_text(handle, index, pointer, -1, nil)
            return body()
        }
    }

    /// As `withText`, for a blob; nil binds NULL.
    private static func withBlob<Result>(
        _ handle: OpaquePointer?, _ index: Int32, _ bytes: [UInt8]?, _ body: () -> Result
    ) -> Result {
        guard let bytes else {
            sqlite3_bind_null(handle, index)
            return body()
        }
        // An empty array may have no storage, and a null pointer would bind NULL instead of an empty blob.
        guard !bytes.isEmpty else {
            sqlite3_bind_zeroblob(handle, index, 0)
            return body()
        }
        return bytes.withUnsafeBytes { raw in
            sqlite3_bind_blob(handle, index, raw.baseAddress, Int32(raw.count), nil)
            return body()
        }
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
        _ db: Database, key: String, variant: String, head: ResponseHead, requestTime: Int64, responseTime: Int64,
        totals: inout TotalsChange
    ) throws -> Bool {
        guard
            let oldHeadBytes = try Int.fetchOne(
                db.cachedStatement(sql: "SELECT length(head) FROM entry WHERE key = ? AND variant = ?"),
                arguments: [key, variant])
        else { return false }
        let blob = HeadCodec.encode(head)
        totals.bytes += blob.count - oldHeadBytes
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
    static func delete(_ db: Database, _ filter: RowFilter, totals: inout TotalsChange) throws -> [RemovedRow] {
        let columns = "id, key, body_id, body IS NULL, charge"
        let rows: [Row]
        switch filter {
        case .url(let url):
            // Rows keyed by the URL's primary key through the key index, the others through the partial URL index.
            rows = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT \(columns) FROM entry WHERE key = 'GET ' || ?1 AND url = ?1
                        UNION ALL
                        SELECT \(columns) FROM entry WHERE url = ?1 AND \(notPrimary)
                        """),
                arguments: [url])
        case .key(let key):
            rows = try Row.fetchAll(
                db.cachedStatement(sql: "SELECT \(columns) FROM entry WHERE key = ?"), arguments: [key])
        case .route(let route):
            rows = try Row.fetchAll(
                db.cachedStatement(sql: "SELECT \(columns) FROM entry WHERE route = ?"), arguments: [route])
        case .variant(let key, let variant):
            rows = try Row.fetchAll(
                db.cachedStatement(sql: "SELECT \(columns) FROM entry WHERE key = ? AND variant = ?"),
                arguments: [key, variant])
        case .body(let key, let variant, let bodyID):
            rows = try Row.fetchAll(
                db.cachedStatement(sql: "SELECT \(columns) FROM entry WHERE key = ? AND variant = ? AND body_id = ?"),
                arguments: [key, variant, Int64(bitPattern: bodyID)])
        }
        let deleteRow = try db.cachedStatement(sql: "DELETE FROM entry WHERE id = ?")
        for row in rows {
            try deleteRow.execute(arguments: [row[0] as Int64])
            totals.entries -= 1
            totals.bytes -= row[4] as Int
        }
        return rows.map { RemovedRow(key: $0[1], bodyID: UInt64(bitPattern: $0[2]), hasFile: $0[3]) }
    }

    /// Deletes every row; returns how many there were.
    static func deleteAll(_ db: Database) throws -> Int {
        try db.execute(sql: "DELETE FROM entry")
        let count = db.changesCount
        try db.execute(sql: "UPDATE totals SET entries = 0, bytes = 0 WHERE id = 1")
        return count
    }

    /// Deletes least-recently-used rows until the disk charge is at most `target`, if it is above `limit`;
    /// `totals` are the table's as they stand. Returns the rows deleted and the totals after.
    static func evict(
        _ db: Database, totals: (entries: Int, bytes: Int), above limit: Int, downTo target: Int,
        change: inout TotalsChange
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
                change.entries -= 1
                change.bytes -= row[4] as Int
            }
        }
        return (evicted, (totals.entries - evicted.count, bytes))
    }
}
