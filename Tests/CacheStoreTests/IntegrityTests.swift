import CacheStore
import Testing

@Suite("Damaged bodies are never served")
struct IntegrityTests {
    enum Damage: String, CaseIterable, CustomTestStringConvertible {
        case flippedBytes, truncated, missing, extended

        var testDescription: String { rawValue }

        func apply(to path: String) {
            switch self {
            case .flippedBytes: flipBytes(path, at: 5_000)
            case .truncated: writeFile(path, pattern(1_000))
            case .missing: removeFile(path)
            case .extended: writeFile(path, pattern(2 << 20, seed: 42))
            }
        }
    }

    @Test(
        "a damaged large body file is a miss, the entry is removed, and that is logged once", arguments: Damage.allCases
    )
    func damagedLargeFile(damage: Damage) throws {
        let directory = TemporaryDirectory()
        let log = LogRecorder()
        let store = try openStore(directory, logger: log.logger)
        let body = pattern(1 << 20, seed: 9)
        #expect(put(store, makeEntry("/damaged"), body, chunk: 100_000))
        let entry = try #require(store.variants(forKey: "GET http://example.com/damaged").first)
        damage.apply(to: store.bodyFilePath(of: entry))

        #expect(isMiss(store.body(of: entry)))
        #expect(isMiss(store.body(of: entry)))
        #expect(store.variants(forKey: "GET http://example.com/damaged").isEmpty)
        #expect(store.stats().diskEntries == 0)
        #expect(log.count(.warning, containing: "failed verification") == 1)
    }

    @Test("a small body file damaged while the store was down is caught when it is loaded", arguments: Damage.allCases)
    func damagedSmallFileAfterRestart(damage: Damage) throws {
        let directory = TemporaryDirectory()
        let path: String
        do {
            let store = try openStore(directory)
            #expect(put(store, makeEntry("/small"), pattern(100_000, seed: 4)))
            path = store.bodyFilePath(of: try #require(store.variants(forKey: "GET http://example.com/small").first))
        }
        damage.apply(to: path)
        let store = try openStore(directory)
        let entry = try #require(store.variants(forKey: "GET http://example.com/small").first)
        #expect(isMiss(store.body(of: entry)))
        #expect(store.variants(forKey: "GET http://example.com/small").isEmpty)
    }

    @Test("a large file changed after it was verified is verified again")
    func reverifiesChangedFile() throws {
        let directory = TemporaryDirectory()
        let store = try openStore(directory)
        let body = pattern(1 << 20, seed: 5)
        #expect(put(store, makeEntry("/changed"), body, chunk: 100_000))
        let entry = try #require(store.variants(forKey: "GET http://example.com/changed").first)
        #expect(contents(store.body(of: entry)) == body)
        // Replaced by a different file of the same size (new inode, new mtime).
        let path = store.bodyFilePath(of: entry)
        removeFile(path)
        writeFile(path, pattern(1 << 20, seed: 6))
        #expect(isMiss(store.body(of: entry)))
    }

    @Test("an entry the caller made up, or never committed, has no body")
    func uncommittedEntryHasNoBody() throws {
        let directory = TemporaryDirectory()
        let store = try openStore(directory)
        #expect(put(store, makeEntry("/x"), [1, 2, 3]))
        #expect(isMiss(store.body(of: makeEntry("/x"))))
        #expect(store.variants(forKey: "GET http://example.com/x").count == 1)
    }
}
