import CacheStore
import Dispatch
import HTTPWire
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("Load")
struct LoadTests {
    @Test("10,000 inserts land, batched, and all read back (time printed, not asserted)")
    func tenThousandInserts() throws {
        let directory = TemporaryDirectory()
        let store = try openStore(directory)
        let clock = ContinuousClock()
        let started = clock.now
        insert(10_000, into: store)
        store.flush()
        let inserted = clock.now - started
        #expect(store.stats().diskEntries == 10_000)
        let readStart = clock.now
        for index in stride(from: 0, to: 10_000, by: 7) {
            let entry = try #require(store.variants(forKey: "GET http://example.com/n/\(index)").first)
            #expect(contents(store.body(of: entry)) == pattern(200, seed: index))
        }
        print("10k inserts: \(inserted); 1,429 reads: \(clock.now - readStart)")
    }

    @Test("concurrent writers, readers and purges never see a body that does not belong to its head")
    func concurrentStress() throws {
        let directory = TemporaryDirectory()
        let limits = StoreLimits(memoryMaxBytes: 1 << 20, diskMaxBytes: 8 << 20, maxObjectSize: 2 << 20)
        let store = try openStore(directory, limits: limits)
        let mismatches = Atomic(0)
        let hits = Atomic(0)
        let sizes = [300, 20_000, 150_000, 600_000]

        /// Each body is derived from the version its head names, so a body paired with the wrong head shows.
        @Sendable func check(_ entry: StoredEntry) {
            guard let body = contents(store.body(of: entry)) else { return }
            hits.add(1, ordering: .relaxed)
            let version = Int(entry.head.headers["X-Version"] ?? "") ?? -1
            if body != pattern(entry.bodySize, seed: version) { mismatches.add(1, ordering: .relaxed) }
        }

        DispatchQueue.concurrentPerform(iterations: 12) { worker in
            for round in 0..<60 {
                let key = (worker * 7 + round) % 24
                switch worker % 3 {
                case 0:
                    let version = worker * 1_000 + round
                    let body = pattern(sizes[round % sizes.count], seed: version)
                    let entry = makeEntry(
                        "/s/\(key)", variant: round % 2 == 0 ? "" : "gzip",
                        responseTime: 1_700_000_000 + Int64(round), headers: ["X-Version": "\(version)"])
                    guard let writer = store.writer(for: entry, expectedSize: body.count) else { continue }
                    var offset = 0
                    while offset < body.count {
                        writer.append(Array(body[offset..<min(offset + 16_384, body.count)]))
                        offset += 16_384
                    }
                    writer.commit()
                case 1 where round % 20 == 19:
                    store.remove(url: "http://example.com/s/\(key)")
                default:
                    for entry in store.variants(forKey: "GET http://example.com/s/\(key)") { check(entry) }
                }
            }
        }
        store.flush()
        for key in 0..<24 {
            for entry in store.variants(forKey: "GET http://example.com/s/\(key)") { check(entry) }
        }
        #expect(mismatches.load(ordering: .relaxed) == 0)
        #expect(hits.load(ordering: .relaxed) > 0)
        #expect(store.stats().diskBytes <= limits.diskMaxBytes)
        print("stress: \(hits.load(ordering: .relaxed)) verified hits, \(store.stats())")
    }

    @Test(
        "start-up with a million entries is quick (LARDER_STORE_BENCH=1; time printed, not asserted)",
        .enabled(if: getenv("LARDER_STORE_BENCH") != nil))
    func millionEntryStartup() throws {
        let directory = TemporaryDirectory()
        let limits = StoreLimits(memoryMaxBytes: 16 << 20, diskMaxBytes: 8 << 30, maxObjectSize: 1 << 20)
        do {
            let store = try openStore(directory, limits: limits)
            insert(1_000_000, into: store)
            store.flush()
        }
        let clock = ContinuousClock()
        let started = clock.now
        let store = try openStore(directory, limits: limits)
        let opened = clock.now - started
        #expect(store.stats().diskEntries == 1_000_000)
        let entry = try #require(store.variants(forKey: "GET http://example.com/n/999999").first)
        #expect(contents(store.body(of: entry)) == pattern(200, seed: 999_999))
        print("1M entries: start-up \(opened), first hit after \(clock.now - started)")
    }

    /// Commits `count` small bodies without waiting for each.
    private func insert(_ count: Int, into store: CacheStore) {
        for index in 0..<count {
            guard let writer = store.writer(for: makeEntry("/n/\(index)"), expectedSize: 200) else { continue }
            writer.append(pattern(200, seed: index))
            writer.commit()
        }
    }
}
