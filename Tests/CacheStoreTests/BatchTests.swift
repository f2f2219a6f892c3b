import CacheStore
import HTTPWire
import Synchronization
import Testing

/// A batch that gives a key its first rows puts them in the memory tier as it wrote them, without reading them back;
/// what the tier then serves must be exactly what the index holds.
@Suite("Batched commits")
struct BatchTests {
    static let noMemory = StoreLimits(memoryMaxBytes: 0, diskMaxBytes: 64 << 20, maxObjectSize: 16 << 20)

    /// Commits `body` under `entry` without waiting: inside `holdingWrites` it joins the pending batch.
    func queue(_ store: CacheStore, _ entry: StoredEntry, _ body: [UInt8]) {
        guard let writer = store.writer(for: entry, expectedSize: body.count) else {
            Issue.record("no writer for \(entry.key)")
            return
        }
        writer.append(body)
        writer.commit()
    }

    func entry(_ path: String, variant: String, responseTime: Int64, tag: String) -> StoredEntry {
        var entry = makeEntry(
            path, variant: variant, responseTime: responseTime,
            headers: ["Content-Type": "text/plain", "X-Tag": tag, "Set-Cookie": "a=1", "set-cookie": "b=\u{e9}"])
        entry.varyRequestHeaders = variant.isEmpty ? [:] : ["Accept-Encoding": variant]
        return entry
    }

    /// What the index holds for `keys`, read by a store that keeps nothing in memory.
    func indexed(_ directory: TemporaryDirectory, _ keys: [String]) throws -> [[StoredEntry]] {
        let store = try openStore(directory, limits: Self.noMemory)
        return keys.map { store.variants(forKey: $0) }
    }

    @Test("variants a batch gives new keys are in memory, newest first, exactly as the index holds them")
    func newKeysMatchIndex() throws {
        let directory = TemporaryDirectory()
        let keys = ["GET http://example.com/a", "GET http://example.com/b"]
        let held: [[StoredEntry]]
        do {
            let store = try openStore(directory)
            #expect(store.waitForStoredKeys())
            store.holdingWrites {
                queue(store, entry("/a", variant: "", responseTime: 100, tag: "a-old"), pattern(300, seed: 1))
                queue(store, entry("/a", variant: "gzip", responseTime: 200, tag: "a-gzip"), pattern(300, seed: 2))
                queue(store, entry("/a", variant: "br", responseTime: 200, tag: "a-br"), pattern(300, seed: 3))
                // Replaces the first row of this very batch.
                queue(store, entry("/a", variant: "", responseTime: 150, tag: "a-new"), pattern(300, seed: 4))
                queue(store, entry("/b", variant: "", responseTime: 100, tag: "b"), pattern(300, seed: 5))
            }
            store.flush()
            #expect(store.stats().memoryEntries == 4)
            #expect(store.stats().diskEntries == 4)
            held = keys.map { store.variants(forKey: $0) }
            #expect(held[0].map { $0.head.headers["X-Tag"] } == ["a-br", "a-gzip", "a-new"])
            // The seed each served body was made from.
            let seeds = held.flatMap { $0 }.map { entry in
                let body = contents(store.body(of: entry))
                return (1...5).first { pattern(300, seed: $0) == body }
            }
            #expect(seeds == [3, 2, 4, 5])
        }
        #expect(try indexed(directory, keys) == held)
    }

    @Test("a batch's completions run in commit order, each with its entry already visible to lookups")
    func completionsInOrderAndVisible() throws {
        let directory = TemporaryDirectory()
        let store = try openStore(directory)
        #expect(store.waitForStoredKeys())
        let seen = Mutex<[(index: Int, stored: Bool, visible: Bool)]>([])
        store.holdingWrites {
            for index in 0..<6 {
                let entry = entry("/c/\(index)", variant: "", responseTime: 100, tag: "\(index)")
                guard let writer = store.writer(for: entry, expectedSize: 300) else { continue }
                writer.append(pattern(300, seed: index))
                writer.commit { stored in
                    // What a request woken by this completion would find.
                    let visible = !store.variants(forKey: entry.key).isEmpty
                    seen.withLock { $0.append((index, stored, visible)) }
                }
            }
        }
        store.flush()
        let outcomes = seen.withLock { $0 }
        #expect(outcomes.map(\.index) == Array(0..<6))
        #expect(outcomes.allSatisfy { $0.stored && $0.visible })
    }

    @Test("a refresh in the batch that gives a key its first row reaches the memory tier")
    func refreshInSameBatch() throws {
        let directory = TemporaryDirectory()
        let key = "GET http://example.com/r"
        let refreshed = ResponseHead(status: 200, headers: ["Content-Type": "text/plain", "X-Tag": "refreshed"])
        let held: [StoredEntry]
        do {
            let store = try openStore(directory)
            #expect(store.waitForStoredKeys())
            store.holdingWrites {
                queue(store, entry("/r", variant: "", responseTime: 100, tag: "first"), pattern(300))
                store.refresh(key: key, variant: "", head: refreshed, requestTime: 299, responseTime: 300)
            }
            store.flush()
            held = store.variants(forKey: key)
            #expect(held.map(\.head) == [refreshed])
            #expect(held.map(\.responseTime) == [300])
            #expect(store.stats().memoryEntries == 1)
        }
        #expect(try indexed(directory, [key]) == [held])
    }

    @Test("new keys a batch evicts at once are not left in the memory tier")
    func evictedInSameBatch() throws {
        let directory = TemporaryDirectory()
        // Room on disk for about two of the three rows.
        let limits = StoreLimits(memoryMaxBytes: 4 << 20, diskMaxBytes: 2_600, maxObjectSize: 2_000)
        let keys = (0..<3).map { "GET http://example.com/e/\($0)" }
        let held: [[StoredEntry]]
        do {
            let store = try openStore(directory, limits: limits)
            #expect(store.waitForStoredKeys())
            store.holdingWrites {
                for index in 0..<3 {
                    queue(store, entry("/e/\(index)", variant: "", responseTime: 100, tag: "\(index)"), pattern(1_000))
                }
            }
            store.flush()
            let stats = store.stats()
            #expect(stats.evictions > 0)
            #expect(stats.memoryEntries == stats.diskEntries)
            held = keys.map { store.variants(forKey: $0) }
        }
        #expect(try indexed(directory, keys) == held)
    }
}

/// The stored-key set grows with the cache but lives outside the memory tier: the tier's budget covers it.
@Suite("Memory budget")
struct MemoryBudgetTests {
    @Test("the memory tier gives up room for the stored-key set, so the two together stay within the budget")
    func keySetIsCharged() throws {
        let directory = TemporaryDirectory()
        let budget = 512 * 1024
        let store = try openStore(
            directory, limits: StoreLimits(memoryMaxBytes: budget, diskMaxBytes: 256 << 20, maxObjectSize: 1 << 20))
        #expect(store.waitForStoredKeys())
        // Many more entries than the tier holds, so it stays full and its size shows what room it was left.
        for index in 0..<6_000 {
            guard let writer = store.writer(for: makeEntry("/\(index)"), expectedSize: 1) else {
                Issue.record("no writer")
                return
            }
            writer.append([UInt8(index & 0xFF)])
            writer.commit()
        }
        store.flush()
        let reserved = store.memoryReservedBytes
        // 6,000 keys in a hash table of 8-byte hashes and 4-byte counts: 72 KB and more.
        #expect(reserved >= 6_000 * 12)
        let stats = store.stats()
        #expect(stats.memoryBytes <= budget - reserved)
        #expect(stats.memoryBytes <= budget - 6_000 * 12)
        #expect(stats.memoryBytes > budget / 2, "the tier should still be full, at \(stats.memoryBytes) bytes")
        #expect(stats.diskEntries == 6_000)
    }
}
