import Foundation
import Testing

/// The memory tier stays within `memory.maxBytes`, the disk tier within `disk.maxBytes` (+5 %), evicting the
/// least recently used entries (issue 3, "Store").
@Suite("Cache bounds")
struct CacheBoundsTests {
    @Test("many entries under small limits: memory and disk stay within their budgets, the newest entries stay")
    func boundsHold() async throws {
        let memoryMax = 256 * 1024
        let diskMax = 512 * 1024
        let bodySize = 24 * 1024
        let origin = try OriginServer { request in
            OriginResponse(headers: [("Cache-Control", "max-age=600")], body: .generated(count: bodySize))
        }
        let larder = try await Daemon.start(
            config: #"{"cache": {"memory": {"maxBytes": "256KiB"}, "disk": {"maxBytes": "512KiB"}}}"#)
        let count = 50  // 1.2 MiB of bodies: more than twice the disk budget
        for index in 0..<count {
            let result = try await Curl.get(origin.url("/entry/\(index)"), via: larder)
            #expect(result.xCache == "MISS")
            #expect(result.body.count == bodySize)
            if index % 10 == 9 {
                let stats = try await CacheStatsSnapshot.fetch(from: larder)
                #expect(stats.memoryBytes <= memoryMax, "after \(index + 1) entries")
                #expect(Double(stats.diskBytes) <= Double(diskMax) * 1.05, "after \(index + 1) entries")
            }
        }
        let stats = try await CacheStatsSnapshot.fetch(from: larder)
        #expect(stats.memoryBytes <= memoryMax)
        #expect(stats.memoryBytes > 0)
        #expect(Double(stats.diskBytes) <= Double(diskMax) * 1.05)
        #expect(stats.entries > 5)
        #expect(stats.entries < count)

        // The body files on disk agree, once evicted ones are unlinked (in the background).
        let bodies = larder.cacheHome.appendingPathComponent("larder/bodies")
        try await Poll.until("evicted body files to be unlinked") {
            Self.totalSize(under: bodies) <= Int(Double(diskMax) * 1.05)
        }

        // The newest entry is still there; the oldest went first.
        let newest = try await Curl.get(origin.url("/entry/\(count - 1)"), via: larder)
        #expect(newest.xCache == "HIT")
        #expect(Payload.firstGeneratedMismatch(newest.body) == nil)
        let oldest = try await Curl.get(origin.url("/entry/0"), via: larder)
        #expect(oldest.xCache == "MISS")
        #expect(Payload.firstGeneratedMismatch(oldest.body) == nil)
    }

    @Test("a body over maxObjectSize is passed on whole and not stored (detail=too-large)")
    func maxObjectSize() async throws {
        let origin = try OriginServer(
            always: OriginResponse(headers: [("Cache-Control", "max-age=600")], body: .generated(count: 300_000)))
        let larder = try await Daemon.start(config: #"{"cache": {"maxObjectSize": "100KiB"}}"#)
        let url = origin.url("/too-large")
        let first = try await Curl.get(url, via: larder)
        #expect(first.body.count == 300_000)
        #expect(Payload.firstGeneratedMismatch(first.body) == nil)
        #expect(first.xCache == "MISS")
        #expect(first.cacheStatus?["detail"] == "too-large")
        let second = try await Curl.get(url, via: larder)
        #expect(second.xCache == "MISS")
        #expect(origin.requests.count == 2)
    }

    @Test("a chunked body over maxObjectSize is passed on whole and not stored")
    func chunkedTooLarge() async throws {
        let chunks = (0..<10).map { _ in [UInt8](repeating: 0x61, count: 30_000) }
        let origin = try OriginServer(
            always: OriginResponse(headers: [("Cache-Control", "max-age=600")], body: .chunked(chunks)))
        let larder = try await Daemon.start(config: #"{"cache": {"maxObjectSize": "100KiB"}}"#)
        let url = origin.url("/too-large-chunked")
        let first = try await Curl.get(url, via: larder)
        #expect(first.body.count == 300_000)
        #expect(first.xCache == "MISS")
        let second = try await Curl.get(url, via: larder)
        #expect(second.xCache == "MISS")
        #expect(second.body.count == 300_000)
        #expect(origin.requests.count == 2)
    }

    /// The sizes of the regular files below `directory`, added up.
    static func totalSize(under directory: URL) -> Int {
        let keys: Set<URLResourceKey> = [.fileSizeKey, .isRegularFileKey]
        let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: Array(keys))
        var total = 0
        while let url = enumerator?.nextObject() as? URL {
            guard let values = try? url.resourceValues(forKeys: keys), values.isRegularFile == true else { continue }
            total += values.fileSize ?? 0
        }
        return total
    }
}
