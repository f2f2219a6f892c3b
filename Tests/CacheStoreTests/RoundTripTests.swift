import CacheStore
import HTTPWire
import Testing

@Suite("Round trips through the memory and disk tiers")
struct RoundTripTests {
    @Test("a small body committed is served from memory with its head", arguments: [0, 1, 4_000, 16 * 1024])
    func smallBodyFromMemory(size: Int) throws {
        let directory = TemporaryDirectory()
        let store = try openStore(directory)
        let body = pattern(size, seed: size)
        #expect(put(store, makeEntry("/small"), body))

        let variants = store.variants(forKey: "GET http://example.com/small")
        #expect(variants.count == 1)
        #expect(variants.first?.head.headers["Content-Type"] == "text/plain")
        #expect(variants.first?.bodySize == size)
        #expect(contents(store.body(of: try #require(variants.first))) == body)
        #expect(store.stats().memoryEntries == 1)
    }

    @Test("a memory hit needs no body file: the file may even be gone")
    func memoryHitTouchesNoFile() throws {
        let directory = TemporaryDirectory()
        let store = try openStore(directory)
        let body = pattern(100_000, seed: 7)
        #expect(put(store, makeEntry("/medium"), body))
        let entry = try #require(store.variants(forKey: "GET http://example.com/medium").first)
        removeFile(store.bodyFilePath(of: entry))
        #expect(contents(store.body(of: entry)) == body)
    }

    @Test("a body larger than the memory cut-off comes back as an open file of the right size")
    func largeBodyAsFile() throws {
        let directory = TemporaryDirectory()
        let store = try openStore(directory)
        let body = pattern(1 << 20, seed: 3)
        #expect(put(store, makeEntry("/large"), body, chunk: 65_536))
        let entry = try #require(store.variants(forKey: "GET http://example.com/large").first)
        #expect(entry.bodySize == body.count)
        let stored = store.body(of: entry)
        guard case .file(let path, let size, _) = stored else {
            Issue.record("expected a file body, got \(String(describing: stored))")
            return
        }
        #expect(path == store.bodyFilePath(of: entry))
        #expect(size == body.count)
        #expect(contents(stored) == body)
    }

    @Test(
        "entries survive a restart, in every storage form",
        arguments: [("/inline", 2_000), ("/small-file", 100_000), ("/large-file", 3 << 20)])
    func restartKeepsEntries(path: String, size: Int) throws {
        let directory = TemporaryDirectory()
        let body = pattern(size, seed: size)
        let entry = makeEntry(path, headers: ["Content-Type": "application/json", "ETag": "\"v1\"", "X-Empty": ""])
        do {
            let store = try openStore(directory)
            #expect(put(store, entry, body, chunk: 50_000))
        }
        let reopened = try openStore(directory)
        let variants = reopened.variants(forKey: entry.key)
        #expect(variants.count == 1)
        let stored = try #require(variants.first)
        #expect(stored.head == entry.head)
        #expect(stored.url == entry.url)
        #expect(stored.route == entry.route)
        #expect(stored.requestTime == entry.requestTime)
        #expect(stored.responseTime == entry.responseTime)
        #expect(contents(reopened.body(of: stored)) == body)
        #expect(reopened.stats().diskEntries == 1)
    }

    @Test("heads and Vary request fields come back exactly, odd values included")
    func headsRoundTrip() throws {
        let directory = TemporaryDirectory()
        var entry = makeEntry("/odd", variant: "accept-language=fr")
        entry.head = ResponseHead(
            version: .http1_0, status: 299, reason: "Whatever Ünïcode",
            headers: HTTPHeaders([
                HTTPField("Set-Cookie", "a=1"), HTTPField("set-cookie", "b=2"),
                HTTPField("X-Long", String(repeating: "x", count: 300)),
                HTTPField("X-Quote", "\"a, b\""), HTTPField("X-Empty", ""),
            ]))
        entry.varyRequestHeaders = ["Accept-Language": "fr", "Accept-Encoding": "gzip, br"]
        do {
            let store = try openStore(directory)
            #expect(put(store, entry, [1, 2, 3]))
        }
        let stored = try #require(try openStore(directory).variants(forKey: entry.key).first)
        #expect(stored.head == entry.head)
        #expect(stored.varyRequestHeaders == entry.varyRequestHeaders)
        #expect(stored.variant == "accept-language=fr")
    }

    @Test("the variants of a key come newest first, from memory and from the index")
    func variantsNewestFirst() throws {
        let directory = TemporaryDirectory()
        do {
            let store = try openStore(directory)
            #expect(put(store, makeEntry("/v", variant: "en", responseTime: 100), pattern(10, seed: 1)))
            #expect(put(store, makeEntry("/v", variant: "fr", responseTime: 300), pattern(10, seed: 2)))
            #expect(put(store, makeEntry("/v", variant: "de", responseTime: 200), pattern(10, seed: 3)))
            #expect(store.variants(forKey: "GET http://example.com/v").map(\.variant) == ["fr", "de", "en"])
        }
        let reopened = try openStore(directory)
        let variants = reopened.variants(forKey: "GET http://example.com/v")
        #expect(variants.map(\.variant) == ["fr", "de", "en"])
        #expect(
            variants.map { contents(reopened.body(of: $0)) } == [
                pattern(10, seed: 2), pattern(10, seed: 3), pattern(10, seed: 1),
            ])
    }

    @Test("a newer response replaces the variant; metadata read before it never gets the new body")
    func replacementIsAtomic() throws {
        let directory = TemporaryDirectory()
        let store = try openStore(directory)
        let first = pattern(200_000, seed: 1)
        let second = pattern(150_000, seed: 2)
        #expect(put(store, makeEntry("/r"), first))
        let old = try #require(store.variants(forKey: "GET http://example.com/r").first)
        #expect(put(store, makeEntry("/r", responseTime: 1_700_000_100), second))

        #expect(isMiss(store.body(of: old)))
        let current = try #require(store.variants(forKey: "GET http://example.com/r").first)
        #expect(current.bodySize == second.count)
        #expect(contents(store.body(of: current)) == second)
        #expect(store.stats().diskEntries == 1)
        store.flush()
        #expect(bodyFiles(in: directory.cache) == [store.bodyFilePath(of: current)])
    }

    @Test("the listing for `larder ls` filters by URL prefix and honours the limit")
    func listing() throws {
        let directory = TemporaryDirectory()
        let store = try openStore(directory)
        for path in ["/a/1", "/a/2", "/a/3", "/b/1"] { #expect(put(store, makeEntry(path), [1])) }
        #expect(
            store.entries(urlPrefix: "http://example.com/a/", limit: 10).map(\.url) == [
                "http://example.com/a/1", "http://example.com/a/2", "http://example.com/a/3",
            ])
        #expect(store.entries(urlPrefix: "http://example.com/a/", limit: 2).count == 2)
        #expect(store.entries(urlPrefix: nil, limit: 100).count == 4)
    }

    @Test("the listing puts keys of every form (versioned, other methods) in URL order among primary keys")
    func listingMergesKeyForms() throws {
        let directory = TemporaryDirectory()
        let store = try openStore(directory)
        var versioned = makeEntry("/a/1")
        versioned.key = "v1 GET http://example.com/a/1"
        var post = makeEntry("/a/2", method: "POST")
        post.key += " body=c0ffee"
        for entry in [makeEntry("/a/3"), post, makeEntry("/a/2"), versioned, makeEntry("/b/1")] {
            #expect(put(store, entry, [1]))
        }
        let listed = store.entries(urlPrefix: "http://example.com/a/", limit: 10).map(\.key)
        #expect(
            listed == [
                "v1 GET http://example.com/a/1", "GET http://example.com/a/2",
                "POST http://example.com/a/2 body=c0ffee", "GET http://example.com/a/3",
            ])
        #expect(store.entries(urlPrefix: "http://example.com/a/", limit: 2).map(\.key) == Array(listed.prefix(2)))
        #expect(store.entries(urlPrefix: nil, limit: 100).map(\.key) == listed + ["GET http://example.com/b/1"])
        #expect(store.remove(url: "http://example.com/a/2") == 2)
        #expect(store.remove(url: "http://example.com/a/1") == 1)
        #expect(
            store.entries(urlPrefix: nil, limit: 100).map(\.key) == [
                "GET http://example.com/a/3", "GET http://example.com/b/1",
            ])
    }
}
