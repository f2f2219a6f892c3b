import Foundation
import Glibc
import Testing

/// What survives a restart or a crash, and what a damaged cache directory leads to: entries that committed are
/// kept, and no truncated or wrong body is ever served (issue 3, "Store").
@Suite("Cache durability")
struct CacheDurabilityTests {
    @Test("entries survive a clean restart: a HIT with the same body, and the origin not contacted again")
    func restartKeepsEntries() async throws {
        let origin = try OriginServer { request in
            if request.path == "/large" {
                return OriginResponse(headers: [("Cache-Control", "max-age=600")], body: .generated(count: 200_000))
            }
            return .ok("small \(request.sequence)", cacheControl: "max-age=600")
        }
        let larder = try await Daemon.start()
        let small = origin.url("/small")
        let large = origin.url("/large")
        #expect(try await Curl.get(small, via: larder).xCache == "MISS")
        #expect(try await Curl.get(large, via: larder).xCache == "MISS")
        #expect(try await larder.terminate() == 0)

        let restarted = try await larder.restart()
        let smallHit = try await Curl.get(small, via: restarted)
        #expect(smallHit.xCache == "HIT")
        #expect(smallHit.bodyText == "small 1")
        #expect(smallHit.originSequence == 1)
        let largeHit = try await Curl.get(large, via: restarted)
        #expect(largeHit.xCache == "HIT")
        #expect(largeHit.body.count == 200_000)
        #expect(Payload.firstGeneratedMismatch(largeHit.body) == nil)
        #expect(largeHit.originSequence == 2)
        #expect(origin.requests.count == 2)
        #expect(try await CacheStatsSnapshot.fetch(from: restarted).entries == 2)
    }

    @Test(
        "a body file damaged on disk (same size, flipped bytes) is a MISS, never garbage, then a HIT again",
        arguments: [100_000, 3_000_000]  // read whole into memory; streamed from the file
    )
    func damagedBodyFile(size: Int) async throws {
        let origin = try OriginServer(
            always: OriginResponse(headers: [("Cache-Control", "max-age=600")], body: .generated(count: size)))
        let larder = try await Daemon.start()
        let url = origin.url("/damaged")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")
        #expect(try await Curl.get(url, via: larder).xCache == "HIT")
        #expect(try await larder.terminate() == 0)

        let files = try Self.bodyFiles(under: larder.cacheHome)
        try #require(files.count == 1, "body files: \(files)")
        try Self.flipBytes(in: files[0], at: [0, size / 2, size - 1])

        // The memory tier is cold after the restart, so the damaged file is what the store would read.
        let restarted = try await larder.restart()
        let miss = try await Curl.get(url, via: restarted)
        #expect(miss.status == 200)
        #expect(miss.xCache == "MISS")
        #expect(miss.body.count == size)
        #expect(Payload.firstGeneratedMismatch(miss.body) == nil)
        #expect(origin.requests.count == 2)
        #expect(restarted.log.contains("failed verification"))

        let hit = try await Curl.get(url, via: restarted)
        #expect(hit.xCache == "HIT")
        #expect(Payload.firstGeneratedMismatch(hit.body) == nil)
        #expect(hit.body.count == size)
        #expect(origin.requests.count == 2)
    }

    @Test("a large body file damaged while the daemon runs is caught by its changed stamp: a MISS, not garbage")
    func damagedWhileRunning() async throws {
        let size = 3_000_000
        let origin = try OriginServer(
            always: OriginResponse(headers: [("Cache-Control", "max-age=600")], body: .generated(count: size)))
        let larder = try await Daemon.start()
        let url = origin.url("/damaged-live")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")
        #expect(try await Curl.get(url, via: larder).xCache == "HIT")
        let files = try Self.bodyFiles(under: larder.cacheHome)
        try #require(files.count == 1, "body files: \(files)")
        try Self.flipBytes(in: files[0], at: [size / 3])

        let miss = try await Curl.get(url, via: larder)
        #expect(miss.xCache == "MISS")
        #expect(miss.body.count == size)
        #expect(Payload.firstGeneratedMismatch(miss.body) == nil)
        let hit = try await Curl.get(url, via: larder)
        #expect(hit.xCache == "HIT")
        #expect(Payload.firstGeneratedMismatch(hit.body) == nil)
        #expect(origin.requests.count == 2)
    }

    @Test("a body file that went missing is a MISS, then stored again")
    func missingBodyFile() async throws {
        let origin = try OriginServer(
            always: OriginResponse(headers: [("Cache-Control", "max-age=600")], body: .generated(count: 50_000)))
        let larder = try await Daemon.start()
        let url = origin.url("/missing")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")
        #expect(try await larder.terminate() == 0)
        for file in try Self.bodyFiles(under: larder.cacheHome) { try FileManager.default.removeItem(at: file) }

        let restarted = try await larder.restart()
        let miss = try await Curl.get(url, via: restarted)
        #expect(miss.xCache == "MISS")
        #expect(Payload.firstGeneratedMismatch(miss.body) == nil)
        #expect(miss.body.count == 50_000)
        #expect(try await Curl.get(url, via: restarted).xCache == "HIT")
        #expect(origin.requests.count == 2)
    }

    @Test("kill -9 during many concurrent large downloads: afterwards every answer is a MISS or a byte-exact HIT")
    func killDuringWrites() async throws {
        // Each index has a body length of its own, so a truncated body or another URL's body is caught. The first
        // round arrives whole and is stored; every later round stalls mid-body (past the in-memory threshold, so the
        // daemon is writing a temp file) until the kill, so the kill surely lands in the middle of writes however
        // fast or slow the machine is.
        let killed = Latch()
        let origin = try OriginServer { request in
            let size = Self.killSize(Self.killIndex(request.target))
            let stalls = !request.target.hasSuffix("round=0") && !killed.isFired
            return OriginResponse(
                headers: [("Cache-Control", "max-age=600")],
                body: .generated(count: size),
                fault: stalls ? .stallBody(afterBytes: size / 2) : nil)
        }
        let larder = try await Daemon.start()
        let downloads = 16
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<downloads {
                group.addTask {
                    var round = 0
                    while !killed.isFired {
                        let url = origin.url("/big/\(index)?round=\(round)")
                        _ = try await Curl.run([url], via: larder, timeout: .seconds(60))
                        round += 1
                    }
                }
            }
            group.addTask {
                // Every first round has been answered whole, and every second round is stalled mid-body.
                try await Poll.until("two rounds of downloads to reach the origin", timeout: .seconds(60)) {
                    origin.requests.count >= 2 * downloads
                }
                // And every first round has committed: a commit is durable once the index counts it.
                let deadline = ContinuousClock.now + .seconds(30)
                while try await CacheStatsSnapshot.fetch(from: larder).diskEntries < downloads {
                    guard ContinuousClock.now < deadline else { throw HarnessError.timedOut("the first round to commit") }
                    try await Task.sleep(for: .milliseconds(20))
                }
                killed.fire()
                larder.kill9()
            }
            try await group.waitForAll()
        }
        #expect(larder.exitStatus == 128 + SIGKILL)

        let targets = Array(Set(origin.requests.map(\.target))).sorted()
        let restarted = try await larder.restart()
        // Unfinished bodies are cleaned up at start-up.
        let temporary = restarted.cacheHome.appendingPathComponent("larder/tmp").path
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary).isEmpty)
        var hits = 0
        var misses = 0
        for round in 0..<2 {
            for target in targets {
                let result = try await Curl.get(origin.url(target), via: restarted)
                let size = Self.killSize(Self.killIndex(target))
                #expect(result.exitCode == 0, "\(target): \(result.stderr)")
                #expect(result.status == 200)
                #expect(result.body.count == size, "\(target) (\(result.xCache ?? "-"))")
                #expect(Payload.firstGeneratedMismatch(result.body) == nil, "\(target) (\(result.xCache ?? "-"))")
                #expect(["MISS", "HIT"].contains(result.xCache ?? ""), "\(target): \(result.xCache ?? "-")")
                if round == 0 && result.xCache == "HIT" { hits += 1 }
                if round == 0 && result.xCache == "MISS" { misses += 1 }
                if round == 1 { #expect(result.xCache == "HIT", "\(target) was not stored after the restart") }
            }
        }
        // What committed before the kill was kept: the whole first round. The stalled second round was not stored.
        #expect(hits == downloads)
        #expect(misses == downloads)
        let stats = try await CacheStatsSnapshot.fetch(from: restarted)
        #expect(stats.entries == targets.count)
        #expect(try await Curl.get(origin.url("/big/0?round=new"), via: restarted).xCache == "MISS")
    }

    /// `/big/<index>?round=<n>` → index.
    static func killIndex(_ target: String) -> Int {
        Int(target.split(separator: "?")[0].split(separator: "/").last ?? "") ?? 0
    }

    static func killSize(_ index: Int) -> Int { 700_000 + index * 7_919 }

    /// Every file under a `bodies` directory below `root` (the cache directory's committed bodies).
    static func bodyFiles(under root: URL) throws -> [URL] {
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        var files: [URL] = []
        while let url = enumerator?.nextObject() as? URL {
            let isFile = (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile ?? false
            if isFile && url.pathComponents.contains("bodies") { files.append(url) }
        }
        return files
    }

    /// Inverts the bytes at `offsets`, keeping the file's size.
    static func flipBytes(in file: URL, at offsets: [Int]) throws {
        let handle = try FileHandle(forUpdating: file)
        defer { try? handle.close() }
        for offset in offsets {
            try handle.seek(toOffset: UInt64(offset))
            let byte = try handle.read(upToCount: 1) ?? Data()
            try handle.seek(toOffset: UInt64(offset))
            try handle.write(contentsOf: Data(byte.map { ~$0 }))
        }
    }
}
