import CacheStore
import Glibc
import HTTPWire
import Synchronization
import Testing

/// A small committed body is served from the memory tier before its index row is written, so requests waiting for
/// it need not wait for the batch; the index catches up, and a failed write takes it back.
/// `holdingWrites` keeps the batch from running while each test looks.
@Suite("Bodies visible ahead of their index write")
struct PublishAheadTests {
    /// What one commit reported: how often `onVisible` ran, and what `completion` said (nil before it ran).
    final class Outcome: Sendable {
        private let visibleCount = Mutex(0)
        private let storedResult = Mutex<Bool?>(nil)
        var visible: Int { visibleCount.withLock { $0 } }
        var stored: Bool? { storedResult.withLock { $0 } }

        /// Commits `body` under `entry`; returns whether `onVisible` had run when `commit` returned.
        func commit(_ store: CacheStore, _ entry: StoredEntry, _ body: [UInt8]) -> Bool {
            guard let writer = store.writer(for: entry, expectedSize: body.count) else {
                Issue.record("no writer for \(entry.key)")
                return false
            }
            writer.append(body)
            writer.commit(
                completion: { result in self.storedResult.withLock { $0 = result } },
                onVisible: { self.visibleCount.withLock { $0 += 1 } })
            return visible == 1
        }
    }

    @Test("a new key's small body is found, whole, before its batch runs; once written, the index holds the same")
    func newKeyVisibleAtOnce() throws {
        let directory = TemporaryDirectory()
        let entry = makeEntry("/fresh")
        let body = pattern(700, seed: 7)
        let outcome = Outcome()
        do {
            let store = try openStore(directory)
            #expect(store.waitForStoredKeys())
            store.holdingWrites {
                #expect(outcome.commit(store, entry, body))
                let found = store.variants(forKey: entry.key)
                #expect(found.count == 1)
                #expect(found.first.map { contents(store.body(of: $0)) } == body)
                // Nothing is written yet.
                #expect(store.stats().diskEntries == 0)
                #expect(outcome.stored == nil)
            }
            store.flush()
            #expect(outcome.stored == true)
            #expect(outcome.visible == 1)
            #expect(store.stats().diskEntries == 1)
        }
        let reopened = try openStore(directory, limits: BatchTests.noMemory)
        let indexed = reopened.variants(forKey: entry.key)
        #expect(indexed.count == 1)
        #expect(indexed.first.map { contents(reopened.body(of: $0)) } == body)
    }

    @Test("a new variant of a key stored on disk but not held in memory waits for its batch, and hides no variant")
    func storedKeyWaitsForIndex() throws {
        let directory = TemporaryDirectory()
        do {
            let store = try openStore(directory)
            #expect(put(store, makeEntry("/v", variant: "gzip"), pattern(300, seed: 1)))
        }
        let store = try openStore(directory)
        #expect(store.waitForStoredKeys())
        let outcome = Outcome()
        store.holdingWrites {
            #expect(!outcome.commit(store, makeEntry("/v", variant: "br"), pattern(300, seed: 2)))
            // The tier did not take a list without the stored variant.
            #expect(store.variants(forKey: makeEntry("/v").key).map(\.variant) == ["gzip"])
        }
        store.flush()
        #expect(outcome.visible == 1)
        #expect(outcome.stored == true)
        #expect(Set(store.variants(forKey: makeEntry("/v").key).map(\.variant)) == ["gzip", "br"])
    }

    @Test("a body whose index write fails is forgotten by the memory tier, and reported not stored")
    func failedWriteForgotten() throws {
        let directory = TemporaryDirectory()
        let faults = FaultInjection()
        let store = try CacheStore(
            directory: directory.cache, limits: roomyLimits, logger: LogRecorder().logger,
            clock: { 1_700_000_000 }, faults: faults)
        #expect(store.waitForStoredKeys())
        let entry = makeEntry("/doomed")
        let outcome = Outcome()
        store.holdingWrites {
            #expect(outcome.commit(store, entry, pattern(500)))
            #expect(store.variants(forKey: entry.key).count == 1)
            faults.failWrites(with: ENOSPC)
        }
        store.flush()
        #expect(outcome.stored == false)
        #expect(outcome.visible == 1)
        #expect(store.variants(forKey: entry.key).isEmpty)
        #expect(store.stats().memoryEntries == 0)
        #expect(store.stats().diskEntries == 0)
    }
}
