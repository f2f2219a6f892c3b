import CacheStore
import HTTPWire
import Testing

@Suite("Purges and refreshes")
struct RemovalTests {
    /// Two URLs under two routes, GET and HEAD keys, two variants of one.
    func populated(_ directory: TemporaryDirectory) throws -> CacheStore {
        let store = try openStore(directory)
        #expect(put(store, makeEntry("/a", variant: "en", route: "api"), pattern(100, seed: 1)))
        #expect(put(store, makeEntry("/a", variant: "fr", route: "api"), pattern(100_000, seed: 2)))
        #expect(put(store, makeEntry("/a", method: "HEAD", route: "api"), []))
        #expect(put(store, makeEntry("/b", route: "static"), pattern(100, seed: 3)))
        return store
    }

    @Test("remove(url:) removes every variant of every key for that URL")
    func byURL() throws {
        let directory = TemporaryDirectory()
        let store = try populated(directory)
        let french = try #require(store.variants(forKey: "GET http://example.com/a").first { $0.variant == "fr" })
        #expect(store.remove(url: "http://example.com/a") == 3)
        #expect(store.variants(forKey: "GET http://example.com/a").isEmpty)
        #expect(store.variants(forKey: "HEAD http://example.com/a").isEmpty)
        #expect(isMiss(store.body(of: french)))
        #expect(store.variants(forKey: "GET http://example.com/b").count == 1)
        #expect(store.stats().diskEntries == 1)
        store.flush()
        #expect(bodyFiles(in: directory.cache).isEmpty)
    }

    @Test("remove(key:) removes that key's variants only")
    func byKey() throws {
        let directory = TemporaryDirectory()
        let store = try populated(directory)
        #expect(store.remove(key: "GET http://example.com/a") == 2)
        #expect(store.variants(forKey: "HEAD http://example.com/a").count == 1)
        #expect(store.remove(key: "GET http://example.com/a") == 0)
    }

    @Test("remove(route:) removes that route's entries only")
    func byRoute() throws {
        let directory = TemporaryDirectory()
        let store = try populated(directory)
        #expect(store.remove(route: "static") == 1)
        #expect(store.variants(forKey: "GET http://example.com/b").isEmpty)
        #expect(store.variants(forKey: "GET http://example.com/a").count == 2)
    }

    @Test("removeAll empties both tiers, and the store keeps working")
    func all() throws {
        let directory = TemporaryDirectory()
        let store = try populated(directory)
        #expect(store.removeAll() == 4)
        let stats = store.stats()
        #expect(stats.diskEntries == 0)
        #expect(stats.diskBytes == 0)
        #expect(stats.memoryEntries == 0)
        #expect(store.variants(forKey: "GET http://example.com/b").isEmpty)
        store.flush()
        #expect(bodyFiles(in: directory.cache).isEmpty)
        #expect(
            fileNames(in: directory.cache).sorted() == [
                "bodies", "index.sqlite", "index.sqlite-shm", "index.sqlite-wal", "lock", "tmp",
            ])

        #expect(put(store, makeEntry("/b"), [9]))
        #expect(put(store, makeEntry("/c"), pattern(100_000, seed: 5)))
        let stored = try #require(store.variants(forKey: "GET http://example.com/c").first)
        #expect(contents(store.body(of: stored)) == pattern(100_000, seed: 5))
        #expect(store.stats().diskEntries == 2)
    }

    @Test("removals persist across a restart")
    func removalPersists() throws {
        let directory = TemporaryDirectory()
        do {
            let store = try populated(directory)
            store.remove(url: "http://example.com/a")
        }
        let store = try openStore(directory)
        #expect(store.variants(forKey: "GET http://example.com/a").isEmpty)
        #expect(store.stats().diskEntries == 1)
    }

    @Test("after a 304 the variant's head and times are replaced and its body kept (RFC 9111 §4.3.4)")
    func refresh() throws {
        let directory = TemporaryDirectory()
        let body = pattern(100_000, seed: 8)
        let newHead = ResponseHead(
            status: 200, headers: ["Content-Type": "text/plain", "ETag": "\"v1\"", "Cache-Control": "max-age=600"])
        do {
            let store = try openStore(directory)
            #expect(
                put(
                    store, makeEntry("/r", variant: "en", headers: ["Content-Type": "text/plain", "ETag": "\"v1\""]),
                    body))
            #expect(put(store, makeEntry("/r", variant: "fr"), [1]))
            store.refresh(
                key: "GET http://example.com/r", variant: "en", head: newHead, requestTime: 1_800_000_000,
                responseTime: 1_800_000_001)
            let refreshed = try #require(store.variants(forKey: "GET http://example.com/r").first)
            #expect(refreshed.variant == "en")
            #expect(refreshed.head == newHead)
            #expect(refreshed.responseTime == 1_800_000_001)
            #expect(contents(store.body(of: refreshed)) == body)
            store.flush()
        }
        let store = try openStore(directory)
        let variants = store.variants(forKey: "GET http://example.com/r")
        #expect(variants.map(\.variant) == ["en", "fr"])
        let refreshed = try #require(variants.first)
        #expect(refreshed.head == newHead)
        #expect(refreshed.requestTime == 1_800_000_000)
        #expect(contents(store.body(of: refreshed)) == body)
    }

    @Test("a store dropped while a refresh waits for its batch writes it before the directory is free again")
    func refreshPendingAtDrop() throws {
        let directory = TemporaryDirectory()
        let newHead = ResponseHead(status: 200, headers: ["ETag": "\"v2\"", "Cache-Control": "max-age=60"])
        do {
            let store = try openStore(directory)
            // A commit just drained, so the refresh after it waits for the next batch rather than draining at once.
            #expect(put(store, makeEntry("/p"), [1, 2, 3]))
            store.refresh(
                key: "GET http://example.com/p", variant: "", head: newHead, requestTime: 10, responseTime: 11)
        }
        let store = try openStore(directory)
        let stored = try #require(store.variants(forKey: "GET http://example.com/p").first)
        #expect(stored.head == newHead)
        #expect(stored.responseTime == 11)
    }

    @Test("a refresh for a variant that is gone changes nothing")
    func refreshMissing() throws {
        let directory = TemporaryDirectory()
        let store = try openStore(directory)
        store.refresh(
            key: "GET http://example.com/none", variant: "", head: ResponseHead(status: 200), requestTime: 1,
            responseTime: 2)
        store.flush()
        #expect(store.variants(forKey: "GET http://example.com/none").isEmpty)
        #expect(store.stats().diskEntries == 0)
    }
}
