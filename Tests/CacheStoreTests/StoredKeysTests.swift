import CacheStore
import HTTPWire
import Testing

/// The set of stored keys lets a lookup of a key never stored skip SQLite; it must never call a stored key absent.
/// The memory tier is kept out of the way (no room), so every lookup goes through the set.
@Suite("Stored keys")
struct StoredKeysTests {
    /// Stores 100-byte bodies under `paths` in a store in `directory`, then opens it again with its stored-key set
    /// not loaded until `releaseKeyLoad()`.
    func openWithKeyLoadHeld(
        _ directory: TemporaryDirectory, storedBefore paths: [String]
    ) throws -> (CacheStore, FaultInjection) {
        do {
            let store = try openStore(directory, limits: Self.noMemory)
            for path in paths { #expect(put(store, makeEntry(path), pattern(100))) }
        }
        let faults = FaultInjection()
        faults.holdKeyLoad()
        let store = try CacheStore(
            directory: directory.cache, limits: Self.noMemory, logger: LogRecorder().logger,
            clock: { 1_700_000_000 }, faults: faults)
        return (store, faults)
    }

    static let noMemory = StoreLimits(memoryMaxBytes: 0, diskMaxBytes: 64 << 20, maxObjectSize: 16 << 20)

    func key(_ path: String) -> String { "GET http://example.com\(path)" }

    /// The set's answer and the store's agree: present exactly when a lookup finds variants.
    func expectStored(
        _ store: CacheStore, _ path: String, variants: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(store.variants(forKey: key(path)).count == variants, sourceLocation: sourceLocation)
        #expect(store.storedKeysMayHold(key(path)) == (variants > 0), sourceLocation: sourceLocation)
    }

    @Test("keys stored before start-up are loaded in the background; a key never stored is known absent")
    func loadedAtStartup() throws {
        let directory = TemporaryDirectory()
        do {
            let store = try openStore(directory, limits: Self.noMemory)
            for index in 0..<50 { #expect(put(store, makeEntry("/k/\(index)"), pattern(100, seed: index))) }
        }
        let store = try openStore(directory, limits: Self.noMemory)
        #expect(store.waitForStoredKeys())
        for index in 0..<50 { expectStored(store, "/k/\(index)", variants: 1) }
        expectStored(store, "/never", variants: 0)
        let entry = try #require(store.variants(forKey: key("/k/7")).first)
        #expect(contents(store.body(of: entry)) == pattern(100, seed: 7))
    }

    @Test("commits, replacements, second variants, purges and removeAll keep the set exact")
    func followsChanges() throws {
        let directory = TemporaryDirectory()
        let store = try openStore(directory, limits: Self.noMemory)
        #expect(store.waitForStoredKeys())
        expectStored(store, "/a", variants: 0)

        #expect(put(store, makeEntry("/a"), pattern(100, seed: 1)))
        expectStored(store, "/a", variants: 1)
        #expect(put(store, makeEntry("/a"), pattern(100, seed: 2)))
        expectStored(store, "/a", variants: 1)
        #expect(put(store, makeEntry("/a", variant: "gzip"), pattern(100, seed: 3)))
        expectStored(store, "/a", variants: 2)

        #expect(store.remove(key: key("/a")) == 2)
        expectStored(store, "/a", variants: 0)

        #expect(put(store, makeEntry("/b"), pattern(100, seed: 4)))
        #expect(put(store, makeEntry("/c", route: "api"), pattern(100, seed: 5)))
        #expect(store.remove(url: "http://example.com/b") == 1)
        expectStored(store, "/b", variants: 0)
        expectStored(store, "/c", variants: 1)
        #expect(store.remove(route: "api") == 1)
        expectStored(store, "/c", variants: 0)

        #expect(put(store, makeEntry("/d"), pattern(100, seed: 6)))
        #expect(store.removeAll() == 1)
        expectStored(store, "/d", variants: 0)
        #expect(put(store, makeEntry("/d"), pattern(100, seed: 7)))
        expectStored(store, "/d", variants: 1)
    }

    @Test("a variant removed because its body is damaged leaves the key's other variant known")
    func oneVariantDiscarded() throws {
        let directory = TemporaryDirectory()
        let store = try openStore(directory, limits: Self.noMemory)
        #expect(store.waitForStoredKeys())
        #expect(put(store, makeEntry("/v"), pattern(100, seed: 1)))
        #expect(put(store, makeEntry("/v", variant: "gzip"), pattern(100_000, seed: 2)))
        let gzip = try #require(store.variants(forKey: key("/v")).first { $0.variant == "gzip" })
        removeFile(store.bodyFilePath(of: gzip))
        #expect(isMiss(store.body(of: gzip)))
        expectStored(store, "/v", variants: 1)
    }

    @Test("evicted keys are known absent, the keys kept present")
    func eviction() throws {
        let directory = TemporaryDirectory()
        let limits = StoreLimits(memoryMaxBytes: 0, diskMaxBytes: 1 << 20, maxObjectSize: 512 << 10)
        let store = try openStore(directory, limits: limits)
        #expect(store.waitForStoredKeys())
        for index in 0..<12 { #expect(put(store, makeEntry("/e/\(index)"), pattern(200_000, seed: index))) }
        #expect(store.stats().evictions > 0)
        var kept = 0
        for index in 0..<12 {
            let stored = store.variants(forKey: key("/e/\(index)")).count
            #expect(store.storedKeysMayHold(key("/e/\(index)")) == (stored > 0))
            kept += stored
        }
        #expect(kept == store.stats().diskEntries)
        expectStored(store, "/e/11", variants: 1)
        expectStored(store, "/e/0", variants: 0)
    }

    @Test("changes made while the keys load are applied on top of what was loaded")
    func changesDuringLoad() throws {
        let directory = TemporaryDirectory()
        let (store, faults) = try openWithKeyLoadHeld(directory, storedBefore: ["/kept", "/replaced", "/removed"])
        // Not loaded yet: every key may be stored, and lookups read SQLite.
        #expect(store.storedKeysMayHold(key("/never")))
        #expect(put(store, makeEntry("/new"), pattern(100, seed: 1)))
        #expect(put(store, makeEntry("/replaced"), pattern(100, seed: 2)))
        #expect(store.remove(key: key("/removed")) == 1)
        #expect(store.variants(forKey: key("/removed")).isEmpty)
        faults.releaseKeyLoad()
        #expect(store.waitForStoredKeys())
        for path in ["/kept", "/replaced", "/new"] { expectStored(store, path, variants: 1) }
        expectStored(store, "/removed", variants: 0)
        expectStored(store, "/never", variants: 0)
    }

    @Test("removeAll while the keys load empties the set")
    func removeAllDuringLoad() throws {
        let directory = TemporaryDirectory()
        let (store, faults) = try openWithKeyLoadHeld(directory, storedBefore: ["/old"])
        #expect(store.removeAll() == 1)
        #expect(put(store, makeEntry("/after"), pattern(100)))
        faults.releaseKeyLoad()
        #expect(store.waitForStoredKeys())
        expectStored(store, "/old", variants: 0)
        expectStored(store, "/after", variants: 1)
    }

    @Test("a commit that fails gives its key back: the set does not keep claiming it")
    func failedCommit() throws {
        let directory = TemporaryDirectory()
        let faults = FaultInjection()
        let store = try CacheStore(
            directory: directory.cache, limits: Self.noMemory, logger: LogRecorder().logger,
            clock: { 1_700_000_000 }, faults: faults)
        #expect(store.waitForStoredKeys())
        faults.failWrites(with: 28)  // ENOSPC
        #expect(!put(store, makeEntry("/failed"), pattern(100)))
        faults.failWrites(with: nil)
        expectStored(store, "/failed", variants: 0)
    }
}
