import CacheStore
import Testing

@Suite("Memory and disk bounds")
struct BoundsTests {
    @Test("the memory tier stays within its byte budget, letting the least recently used keys go")
    func memoryBound() throws {
        let directory = TemporaryDirectory()
        let limits = StoreLimits(memoryMaxBytes: 256 * 1024, diskMaxBytes: 64 << 20, maxObjectSize: 1 << 20)
        let store = try openStore(directory, limits: limits)
        for index in 0..<100 {
            #expect(put(store, makeEntry("/m/\(index)"), pattern(10_000, seed: index)))
            #expect(store.stats().memoryBytes <= limits.memoryMaxBytes)
        }
        let stats = store.stats()
        #expect(stats.memoryEvictions > 0)
        #expect(stats.memoryEntries < 100)
        #expect(stats.diskEntries == 100)
        #expect(stats.evictions == 0)
        // What left memory is still on disk.
        let first = try #require(store.variants(forKey: "GET http://example.com/m/0").first)
        #expect(contents(store.body(of: first)) == pattern(10_000, seed: 0))
    }

    @Test("the disk tier stays within its budget under many inserts, and evictions are counted")
    func diskBound() throws {
        let directory = TemporaryDirectory()
        let limits = StoreLimits(memoryMaxBytes: 64 * 1024, diskMaxBytes: 1 << 20, maxObjectSize: 512 * 1024)
        let store = try openStore(directory, limits: limits)
        for index in 0..<200 {
            let size = [2_000, 20_000, 90_000][index % 3]
            #expect(put(store, makeEntry("/d/\(index)"), pattern(size, seed: index)))
            #expect(store.stats().diskBytes <= limits.diskMaxBytes)
        }
        store.flush()
        let stats = store.stats()
        #expect(stats.evictions > 0)
        #expect(stats.diskEntries + stats.evictions == 200)
        // Eviction goes down to 95 % of the budget; one more commit (at most one object) may have followed.
        #expect(stats.diskBytes >= limits.diskMaxBytes * 95 / 100 - 100_000)
        let onDisk = bodyFiles(in: directory.cache).compactMap(fileSize).reduce(0, +)
        #expect(onDisk <= limits.diskMaxBytes)
        #expect(store.variants(forKey: "GET http://example.com/d/199").count == 1)
        #expect(store.variants(forKey: "GET http://example.com/d/0").isEmpty)
    }

    @Test("eviction takes the least recently used entry, not the oldest written")
    func evictionIsLeastRecentlyUsed() throws {
        let directory = TemporaryDirectory()
        // Ten 20 kB file bodies (about 21 kB charged each) fit; the eleventh makes room.
        let limits = StoreLimits(memoryMaxBytes: 0, diskMaxBytes: 220_000, maxObjectSize: 100_000)
        let store = try openStore(directory, limits: limits)
        for index in 0..<10 { #expect(put(store, makeEntry("/lru/\(index)"), pattern(20_000, seed: index))) }
        #expect(store.stats().evictions == 0)
        let first = try #require(store.variants(forKey: "GET http://example.com/lru/0").first)
        #expect(contents(store.body(of: first)) == pattern(20_000, seed: 0))

        #expect(put(store, makeEntry("/lru/10"), pattern(20_000, seed: 10)))
        #expect(put(store, makeEntry("/lru/11"), pattern(20_000, seed: 11)))
        #expect(store.stats().evictions >= 2)
        #expect(store.variants(forKey: "GET http://example.com/lru/0").count == 1)
        #expect(store.variants(forKey: "GET http://example.com/lru/1").isEmpty)
        #expect(store.variants(forKey: "GET http://example.com/lru/2").isEmpty)
    }

    @Test("a body over maxObjectSize is refused up front when its size is known, and not stored when it streams")
    func maxObjectSize() throws {
        let directory = TemporaryDirectory()
        let limits = StoreLimits(memoryMaxBytes: 1 << 20, diskMaxBytes: 8 << 20, maxObjectSize: 50_000)
        let store = try openStore(directory, limits: limits)
        #expect(store.writer(for: makeEntry("/big"), expectedSize: 50_001) == nil)
        #expect(store.writer(for: makeEntry("/big"), expectedSize: 50_000) != nil)
        #expect(!put(store, makeEntry("/big"), pattern(60_000), declareSize: false))
        #expect(store.variants(forKey: "GET http://example.com/big").isEmpty)
        #expect(fileNames(in: directory.cache + "/tmp").isEmpty)
        #expect(put(store, makeEntry("/fits"), pattern(50_000), declareSize: false))
    }
}
