import Foundation
import CacheStore
import Synchronization
import Testing

@Suite("Writers store whole bodies or nothing")
struct WriterTests {
    @Test(
        "a body that does not match its expected size stores nothing",
        arguments: [(expected: 1_000, sent: 999), (1_000, 1_001), (100_000, 60_000), (100_000, 100_001), (10, 0)])
    func sizeMismatch(expected: Int, sent: Int) throws {
        let directory = TemporaryDirectory()
        let store = try openStore(directory)
        let writer = try #require(store.writer(for: makeEntry("/m"), expectedSize: expected))
        writer.append(pattern(sent))
        let stored = Mutex<Bool?>(nil)
        writer.commit { result in stored.withLock { $0 = result } }
        store.flush()
        #expect(stored.withLock { $0 } == false)
        #expect(store.variants(forKey: "GET http://example.com/m").isEmpty)
        #expect(store.stats().diskEntries == 0)
        #expect(fileNames(in: directory.cache + "/tmp").isEmpty)
        #expect(bodyFiles(in: directory.cache).isEmpty)
    }

    @Test("a discarded writer leaves nothing behind, and a commit after it fails")
    func discard() throws {
        let directory = TemporaryDirectory()
        let store = try openStore(directory)
        let writer = try #require(store.writer(for: makeEntry("/d"), expectedSize: nil))
        writer.append(pattern(200_000))
        writer.discard()
        let stored = Mutex<Bool?>(nil)
        writer.commit { result in stored.withLock { $0 = result } }
        store.flush()
        #expect(stored.withLock { $0 } == false)
        #expect(fileNames(in: directory.cache + "/tmp").isEmpty)
        #expect(store.variants(forKey: "GET http://example.com/d").isEmpty)
    }

    @Test("a writer dropped without commit or discard removes its temp file")
    func droppedWriter() throws {
        let directory = TemporaryDirectory()
        let store = try openStore(directory)
        weak var dropped: CacheWriter?
        do {
            let writer = try #require(store.writer(for: makeEntry("/dropped"), expectedSize: nil))
            writer.append(pattern(100_000))
            dropped = writer
        }
        store.flush()
        // The last reference to the writer is its own pending file write, on a queue of its own, which also creates
        // the temp file: only once the writer is gone may the directory be expected empty.
        let deadline = ContinuousClock.now + .seconds(10)
        while dropped != nil && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(dropped == nil)
        #expect(fileNames(in: directory.cache + "/tmp").isEmpty)
    }

    @Test("a body of unknown length is stored as it came", arguments: [0, 16 * 1024 + 1, 700_000])
    func unknownLength(size: Int) throws {
        let directory = TemporaryDirectory()
        let store = try openStore(directory)
        #expect(put(store, makeEntry("/u"), pattern(size, seed: size), declareSize: false, chunk: 1_000))
        let entry = try #require(store.variants(forKey: "GET http://example.com/u").first)
        #expect(entry.bodySize == size)
        #expect(contents(store.body(of: entry)) == pattern(size, seed: size))
    }

    @Test("committing twice stores once and reports failure the second time")
    func doubleCommit() throws {
        let directory = TemporaryDirectory()
        let store = try openStore(directory)
        let writer = try #require(store.writer(for: makeEntry("/twice"), expectedSize: 3))
        writer.append([1, 2, 3])
        let results = Mutex<[Bool]>([])
        writer.commit { result in results.withLock { $0.append(result) } }
        writer.commit { result in results.withLock { $0.append(result) } }
        store.flush()
        #expect(results.withLock { $0.filter { $0 }.count } == 1)
        #expect(results.withLock { $0.count } == 2)
        #expect(store.stats().diskEntries == 1)
    }
}
