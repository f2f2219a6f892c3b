import GRDB
import HTTPWire
import Testing

@testable import CacheStore

/// `totals` holds the row count and the charges' sum, which start-up reads instead of scanning the index; every
/// write transaction keeps it equal to the rows themselves.
@Suite("Index totals and schema versions")
struct IndexTotalsTests {
    /// (rows, sum of charges) counted from the rows, and as `totals` says.
    func counted(_ store: CacheStore) throws -> (rows: [Int], totals: [Int]) {
        try store.pool.read { db in
            let row = try #require(try Row.fetchOne(db, sql: "SELECT count(*), coalesce(sum(charge), 0) FROM entry"))
            let totals = try StoreIndex.totals(db)
            return ([row[0], row[1]], [totals.entries, totals.bytes])
        }
    }

    @Test("inserts, replacements, refreshes, purges and evictions keep totals equal to the rows")
    func totalsFollowEveryChange() throws {
        let directory = TemporaryDirectory()
        // Room for about 40 bodies of 4 KiB: the later puts evict.
        let store = try openStore(
            directory, limits: StoreLimits(memoryMaxBytes: 1 << 20, diskMaxBytes: 200_000, maxObjectSize: 1 << 20))
        for index in 0..<30 { #expect(put(store, makeEntry("/t/\(index)"), pattern(4_000, seed: index))) }
        #expect(put(store, makeEntry("/t/3"), pattern(9_000, seed: 99)))
        var post = makeEntry("/t/4", method: "POST")
        post.key += " body=1"
        #expect(put(store, post, pattern(100)))
        var refreshed = ResponseHead(status: 200, headers: ["Content-Type": "text/plain"])
        refreshed.headers.add("X-Long-Header", String(repeating: "x", count: 500))
        store.refresh(key: "GET http://example.com/t/5", variant: "", head: refreshed, requestTime: 1, responseTime: 2)
        store.flush()
        var (rows, totals) = try counted(store)
        #expect(rows == totals)
        #expect(store.remove(url: "http://example.com/t/4") == 2)
        #expect(store.remove(route: "default") > 0)
        (rows, totals) = try counted(store)
        #expect(rows == totals)
        #expect(rows == [0, 0])
        for index in 0..<80 { #expect(put(store, makeEntry("/u/\(index)"), pattern(4_000, seed: index))) }
        (rows, totals) = try counted(store)
        #expect(rows == totals)
        #expect(store.stats().evictions > 0)
        #expect(store.stats().diskEntries == rows[0])
        #expect(store.removeAll() == rows[0])
        (rows, totals) = try counted(store)
        #expect(rows == [0, 0] && totals == [0, 0])
    }

    @Test("a new index is made with 16 KiB pages")
    func newIndexPageSize() throws {
        let directory = TemporaryDirectory()
        let store = try openStore(directory)
        #expect(put(store, makeEntry("/p/0"), pattern(1_000)))
        store.flush()
        #expect(try store.pool.read { try Int.fetchOne($0, sql: "PRAGMA page_size") } == StoreIndex.pageSize)
        #expect(StoreIndex.pageSize == 16_384)
    }

    @Test("an index written by the first version opens with its totals counted again and its URL index partial")
    func firstVersionIndexMigrates() throws {
        let directory = TemporaryDirectory()
        // The first version's schema, made by its own migration, and its rows inserted under its triggers; then
        // totals set off, as a crash between versions could not leave them but a bug could: the migration must
        // count them from the rows.
        makeDirectory(directory.cache)
        let queue = try DatabaseQueue(path: directory.cache + "/index.sqlite")
        try StoreIndex.migrator().migrate(queue, upTo: "v1")
        var other = makeEntry("/m/0", method: "POST")
        other.key += " body=2"
        try queue.write { db in
            var countedByTriggers = StoreIndex.TotalsChange()
            for (index, entry) in ((0..<5).map { makeEntry("/m/\($0)") } + [other]).enumerated() {
                let body = pattern(300, seed: index)
                var entry = entry
                entry.bodyID = UInt64(index + 1)
                entry.bodySize = body.count
                let job = CommitJob(
                    entry: entry, body: .inline(body), crc: CRC32.checksum(body), memoryCopy: nil, completion: nil)
                _ = try StoreIndex.insert(db, job, now: 1, totals: &countedByTriggers)
            }
            try db.execute(sql: "UPDATE totals SET entries = 1000, bytes = 1")
        }
        let firstPageSize = try queue.read { try Int.fetchOne($0, sql: "PRAGMA page_size") }
        try queue.close()
        let store = try openStore(directory)
        // Made with SQLite's default pages, it keeps them: a page size takes effect only on an empty file.
        #expect(firstPageSize != StoreIndex.pageSize)
        #expect(try store.pool.read { try Int.fetchOne($0, sql: "PRAGMA page_size") } == firstPageSize)
        let (rows, totals) = try counted(store)
        #expect(rows[0] == 6)
        #expect(rows == totals)
        #expect(store.stats().diskEntries == 6)
        let indexes = try store.pool.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT name FROM sqlite_master WHERE type IN ('index', 'trigger') AND tbl_name = 'entry'
                    ORDER BY name
                    """)
        }
        #expect(indexes == ["entry_by_key", "entry_by_last_access", "entry_by_other_url", "entry_by_route"])
        #expect(store.remove(url: "http://example.com/m/0") == 2)
        let after = try counted(store)
        #expect(after.rows[0] == 4)
        #expect(after.rows == after.totals)
    }
}
