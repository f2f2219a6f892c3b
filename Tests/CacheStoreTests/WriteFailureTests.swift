import CacheStore
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("A full disk stops storing, not serving")
struct WriteFailureTests {
    @Test("ENOSPC fails the writers, logs once, pauses storing, and storing resumes after the back-off")
    func fullDisk() throws {
        let directory = TemporaryDirectory()
        let log = LogRecorder()
        let clock = ManualClock()
        let faults = FaultInjection()
        let limits = StoreLimits(
            memoryMaxBytes: 4 << 20, diskMaxBytes: 64 << 20, maxObjectSize: 16 << 20, pauseAfterWriteError: 30)
        let store = try CacheStore(
            directory: directory.cache, limits: limits, logger: log.logger, clock: { clock.now }, faults: faults)
        #expect(put(store, makeEntry("/before"), pattern(300_000, seed: 1)))

        faults.failWrites(with: ENOSPC)
        // Three writers in flight when the disk fills: a file body, a small inline one, another file body.
        var writers: [(CacheWriter, Int)] = []
        for (path, size) in [("/a", 200_000), ("/b", 500), ("/c", 90_000)] {
            writers.append((try #require(store.writer(for: makeEntry(path), expectedSize: size)), size))
        }
        let results = Mutex<[Bool]>([])
        for (writer, size) in writers {
            writer.append(pattern(size))
            writer.commit { stored in results.withLock { $0.append(stored) } }
        }
        store.flush()
        #expect(results.withLock { $0 } == [false, false, false])
        #expect(log.count(.error, containing: "storing paused") == 1)
        #expect(store.stats().writeFailures == 3)
        #expect(fileNames(in: directory.cache + "/tmp").isEmpty)

        // Paused: no writer is offered, and what was stored is still served.
        #expect(store.writer(for: makeEntry("/d"), expectedSize: 10) == nil)
        let before = try #require(store.variants(forKey: "GET http://example.com/before").first)
        #expect(contents(store.body(of: before)) == pattern(300_000, seed: 1))

        // Still full when the pause ends: the retry fails, quietly.
        clock.advance(by: 31)
        #expect(!put(store, makeEntry("/e"), pattern(50_000)))
        #expect(store.writer(for: makeEntry("/e"), expectedSize: 10) == nil)
        #expect(log.count(.error, containing: "storing paused") == 1)

        // Space again: after the next pause, storing works and says so once.
        faults.failWrites(with: nil)
        clock.advance(by: 31)
        #expect(put(store, makeEntry("/f"), pattern(50_000, seed: 6)))
        #expect(put(store, makeEntry("/g"), pattern(500, seed: 7)))
        #expect(log.count(.notice, containing: "storing resumed") == 1)
        let stored = try #require(store.variants(forKey: "GET http://example.com/f").first)
        #expect(contents(store.body(of: stored)) == pattern(50_000, seed: 6))
        #expect(store.variants(forKey: "GET http://example.com/a").isEmpty)
        #expect(store.stats().diskEntries == 3)
    }
}
