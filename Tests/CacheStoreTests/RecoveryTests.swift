import CacheStore
import Testing

@Suite("Start-up recovery after a crash")
struct RecoveryTests {
    @Test("unfinished bodies left in tmp/ are deleted at start-up")
    func tempLeftoversRemoved() throws {
        let directory = TemporaryDirectory()
        do { _ = try openStore(directory) }
        writeFile(directory.cache + "/tmp/0123456789abcdef", pattern(70_000))
        writeFile(directory.cache + "/tmp/half-written", pattern(10))
        let log = LogRecorder()
        _ = try openStore(directory, logger: log.logger)
        #expect(fileNames(in: directory.cache + "/tmp").isEmpty)
        #expect(log.count(.notice, containing: "unfinished") == 1)
    }

    @Test("a writer cut off before committing leaves a temp file and no row; a restart serves nothing and cleans up")
    func crashBeforeCommit() throws {
        let directory = TemporaryDirectory()
        do {
            let store = try openStore(directory)
            #expect(put(store, makeEntry("/kept"), pattern(50_000, seed: 1)))
        }
        // What a kill -9 halfway through a second body leaves: its temp file, no row.
        writeFile(directory.cache + "/tmp/00000000deadbeef", pattern(30_000, seed: 2))
        let store = try openStore(directory)
        #expect(store.variants(forKey: "GET http://example.com/lost").isEmpty)
        let kept = try #require(store.variants(forKey: "GET http://example.com/kept").first)
        #expect(contents(store.body(of: kept)) == pattern(50_000, seed: 1))
        #expect(fileNames(in: directory.cache + "/tmp").isEmpty)
    }

    @Test("a body file renamed into place whose row never committed is swept; committed bodies stay")
    func orphanBodySwept() throws {
        let directory = TemporaryDirectory()
        let keptPath: String
        do {
            let store = try openStore(directory)
            #expect(put(store, makeEntry("/kept"), pattern(50_000, seed: 1)))
            keptPath = store.bodyFilePath(of: try #require(store.variants(forKey: "GET http://example.com/kept").first))
        }
        makeDirectory(directory.cache + "/bodies/ab")
        let orphan = directory.cache + "/bodies/ab/00000000000000ab"
        writeFile(orphan, pattern(40_000))
        let store = try openStore(directory)
        store.waitForOrphanSweep()
        #expect(fileSize(orphan) == nil)
        #expect(fileSize(keptPath) == 50_000)
        let kept = try #require(store.variants(forKey: "GET http://example.com/kept").first)
        #expect(contents(store.body(of: kept)) == pattern(50_000, seed: 1))
    }

    @Test("a bodies directory set aside by removeAll and cut short by a crash is deleted at start-up")
    func trashRemoved() throws {
        let directory = TemporaryDirectory()
        do { _ = try openStore(directory) }
        makeDirectory(directory.cache + "/trash-00000000000000aa")
        makeDirectory(directory.cache + "/trash-00000000000000aa/3f")
        writeFile(directory.cache + "/trash-00000000000000aa/3f/000000000000003f", pattern(30_000))
        let store = try openStore(directory)
        store.waitForOrphanSweep()
        #expect(!fileNames(in: directory.cache).contains { $0.hasPrefix("trash-") })
    }

    @Test("a row whose body file is missing is a miss and goes away")
    func rowWithoutFile() throws {
        let directory = TemporaryDirectory()
        let path: String
        do {
            let store = try openStore(directory)
            #expect(put(store, makeEntry("/gone"), pattern(80_000, seed: 3)))
            #expect(put(store, makeEntry("/here"), pattern(80_000, seed: 4)))
            path = store.bodyFilePath(of: try #require(store.variants(forKey: "GET http://example.com/gone").first))
        }
        removeFile(path)
        let store = try openStore(directory)
        #expect(store.stats().diskEntries == 2)
        let gone = try #require(store.variants(forKey: "GET http://example.com/gone").first)
        #expect(isMiss(store.body(of: gone)))
        #expect(store.variants(forKey: "GET http://example.com/gone").isEmpty)
        #expect(store.stats().diskEntries == 1)
        let here = try #require(store.variants(forKey: "GET http://example.com/here").first)
        #expect(contents(store.body(of: here)) == pattern(80_000, seed: 4))
    }

    @Test("bodies written while the orphan sweep runs are not swept")
    func sweepSparesNewCommits() throws {
        let directory = TemporaryDirectory()
        do {
            let store = try openStore(directory)
            for index in 0..<200 { #expect(put(store, makeEntry("/old/\(index)"), pattern(20_000, seed: index))) }
        }
        makeDirectory(directory.cache + "/bodies/zz")
        for index in 0..<200 { writeFile(directory.cache + "/bodies/zz/\(index)", [1]) }
        let store = try openStore(directory)
        for index in 0..<50 { #expect(put(store, makeEntry("/new/\(index)"), pattern(20_000, seed: -index))) }
        store.waitForOrphanSweep()
        #expect(bodyFiles(in: directory.cache).count == 250)
        for index in 0..<50 {
            let entry = try #require(store.variants(forKey: "GET http://example.com/new/\(index)").first)
            #expect(contents(store.body(of: entry)) == pattern(20_000, seed: -index))
        }
    }

    @Test("a second store on the same directory is refused while the first is open")
    func oneStorePerDirectory() throws {
        let directory = TemporaryDirectory()
        let first = try openStore(directory)
        #expect(throws: CacheStoreError.directoryInUse(path: directory.cache)) {
            _ = try openStore(directory)
        }
        _ = first.stats()
    }

    @Test("the cache directory and its subdirectories are 0700; the index, lock and body files 0600")
    func permissions() throws {
        let directory = TemporaryDirectory()
        let store = try openStore(directory)
        #expect(put(store, makeEntry("/p"), pattern(100_000)))
        let entry = try #require(store.variants(forKey: "GET http://example.com/p").first)
        let bodyPath = store.bodyFilePath(of: entry)
        let bucket = String(bodyPath[..<bodyPath.lastIndex(of: "/")!])  // ! : an absolute path has a slash
        for path in [directory.cache, directory.cache + "/tmp", directory.cache + "/bodies", bucket] {
            #expect(CacheStoreTests.permissions(path) == 0o700, "\(path)")
        }
        for suffix in ["/index.sqlite", "/index.sqlite-wal", "/index.sqlite-shm", "/lock"] {
            #expect(CacheStoreTests.permissions(directory.cache + suffix) == 0o600, "\(suffix)")
        }
        #expect(CacheStoreTests.permissions(bodyPath) == 0o600)
    }
}
