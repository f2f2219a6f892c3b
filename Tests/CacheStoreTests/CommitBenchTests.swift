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

/// The store's share of the proxy's miss path, for profiling (`Benchmarks/store-commits.sh`): every request a new
/// URL, a 1 KiB cacheable body, committed the way `Exchange+Forward.swift` does. Prints figures, asserts only that
/// everything was stored.
@Suite("Commit benchmark")
struct CommitBenchTests {
    @Test(
        "commits of 1 KiB misses (LARDER_STORE_BENCH=1; LARDER_STORE_BENCH_COUNT, LARDER_STORE_BENCH_WAVE)",
        .enabled(if: getenv("LARDER_STORE_BENCH") != nil && getenv("LARDER_STORE_BENCH_CLIENTS") == nil))
    func missCommits() throws {
        let count = environment("LARDER_STORE_BENCH_COUNT") ?? 2_000
        // How many commits are in flight before the benchmark waits for them all: 1 is one request at a time,
        // larger waves let the writer queue batch as it does under concurrent clients.
        let wave = max(1, environment("LARDER_STORE_BENCH_WAVE") ?? 1)
        let directory = TemporaryDirectory()
        let store = try Self.openBenchStore(directory)
        let body = Self.body
        let stored = Atomic(0)
        let started = Measurement()
        var index = 0
        while index < count {
            let inFlight = DispatchGroup()
            for _ in 0..<min(wave, count - index) {
                let entry = Self.missEntry(index)
                index += 1
                guard let writer = store.writer(for: entry, expectedSize: body.count) else { continue }
                writer.append(body)
                inFlight.enter()
                writer.commit { ok in
                    if ok { stored.add(1, ordering: .relaxed) }
                    inFlight.leave()
                }
            }
            inFlight.wait()
        }
        Self.report(
            started, count: count, stored: stored.load(ordering: .relaxed), store: store, shape: "waves of \(wave)")
    }

    @Test(
        "commits of 1 KiB misses from concurrent clients (LARDER_STORE_BENCH=1; LARDER_STORE_BENCH_COUNT, _CLIENTS)",
        .enabled(if: getenv("LARDER_STORE_BENCH") != nil && getenv("LARDER_STORE_BENCH_CLIENTS") != nil))
    func concurrentClientCommits() throws {
        let count = environment("LARDER_STORE_BENCH_COUNT") ?? 2_000
        // Each client commits its next response when its previous commit completes, as a proxy client whose
        // repeat request waits for the stored answer would: batches form as they do under load, not in waves.
        let clients = max(1, environment("LARDER_STORE_BENCH_CLIENTS") ?? 50)
        let directory = TemporaryDirectory()
        let store = try Self.openBenchStore(directory)
        let body = Self.body
        let next = Atomic(0)
        let stored = Atomic(0)
        let done = DispatchGroup()
        let started = Measurement()

        @Sendable func commitNext() {
            let index = next.add(1, ordering: .relaxed).oldValue
            guard index < count else {
                done.leave()
                return
            }
            guard let writer = store.writer(for: Self.missEntry(index), expectedSize: body.count) else {
                done.leave()
                return
            }
            writer.append(body)
            writer.commit { ok in
                if ok { stored.add(1, ordering: .relaxed) }
                commitNext()
            }
        }

        for _ in 0..<clients {
            done.enter()
            DispatchQueue.global().async { commitNext() }
        }
        done.wait()
        Self.report(
            started, count: count, stored: stored.load(ordering: .relaxed), store: store, shape: "\(clients) clients")
    }

    private static let body = pattern(1_024, seed: 1)

    private static func openBenchStore(_ directory: TemporaryDirectory) throws -> CacheStore {
        let limits = StoreLimits(memoryMaxBytes: 64 << 20, diskMaxBytes: 1 << 30, maxObjectSize: 16 << 20)
        let store = try openStore(directory, limits: limits)
        #expect(store.waitForStoredKeys())
        return store
    }

    /// Wall and CPU time since it was made.
    private struct Measurement {
        let wall = ContinuousClock.now
        let cpu = Measurement.processCPUMicroseconds()

        /// CPU time of every thread of the process (user and system), so the writer queue's work counts.
        static func processCPUMicroseconds() -> Int {
            var time = timespec()
            clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
            return time.tv_sec * 1_000_000 + time.tv_nsec / 1_000
        }
    }

    /// Checks everything was stored and prints the figures `Benchmarks/store-commits.sh` reads.
    private static func report(_ started: Measurement, count: Int, stored: Int, store: CacheStore, shape: String) {
        let elapsed = ContinuousClock.now - started.wall
        let cpu = Measurement.processCPUMicroseconds() - started.cpu
        #expect(stored == count)
        #expect(store.stats().diskEntries == count)
        print(
            "commit bench: \(count) commits, \(shape): \(elapsed) wall, "
                + "cpu-us-per-commit \(Double(cpu) / Double(count))")
    }

    private func environment(_ name: String) -> Int? {
        getenv(name).flatMap { Int(String(cString: $0)) }
    }

    /// What `StoredEntry.from` makes of a typical origin's 200 with `max-age`, no `Vary`.
    private static func missEntry(_ index: Int) -> StoredEntry {
        let url = "http://127.0.0.1:8080/bench/item-\(index)"
        return StoredEntry(
            key: "GET " + url, variant: "", url: url, route: "default",
            head: ResponseHead(
                status: 200, reason: "OK",
                headers: [
                    "Server": "nginx/1.22.1",
                    "Date": "Mon, 23 Nov 2026 06:00:00 GMT",
                    "Content-Type": "application/octet-stream",
                    "Content-Length": "1024",
                    "Last-Modified": "Sun, 22 Nov 2026 12:00:00 GMT",
                    "ETag": "\"6740a1c0-400\"",
                    "Cache-Control": "max-age=3600",
                    "Accept-Ranges": "bytes",
                ]),
            varyRequestHeaders: [:], requestTime: 1_795_000_000, responseTime: 1_795_000_000)
    }
}
