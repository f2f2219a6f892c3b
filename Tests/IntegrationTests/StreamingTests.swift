import Foundation
import Testing

/// Large responses stream through with backpressure: never held whole, never corrupted.
@Suite("Streaming")
struct StreamingTests {
    @Test("a 200 MiB response arrives intact, every byte checked")
    func largeResponse() async throws {
        let count = 200 * 1024 * 1024
        let origin = try OriginServer(always: OriginResponse(body: .generated(count: count)))
        let larder = try await Daemon.start()
        let result = try await Curl.get(origin.url("/large"), via: larder, timeout: .seconds(120))
        #expect(result.exitCode == 0, "curl: \(result.stderr)")
        #expect(result.header("Content-Length") == "\(count)")
        #expect(result.body.count == count)
        #expect(Payload.firstGeneratedMismatch(result.body) == nil)
    }

    @Test("a slow client reading 128 MiB keeps the daemon's peak resident memory under 64 MiB")
    func boundedMemoryWithSlowClient() async throws {
        let count = 128 * 1024 * 1024
        let origin = try OriginServer(always: OriginResponse(body: .generated(count: count)))
        let larder = try await Daemon.start()
        // About 4 s at 32 MB/s: the origin could send far faster, so Larder must pause it.
        let result = try await Curl.run(
            ["--limit-rate", "32M", origin.url("/slow")], via: larder, timeout: .seconds(120))
        #expect(result.exitCode == 0, "curl: \(result.stderr)")
        #expect(result.body.count == count)
        #expect(Payload.firstGeneratedMismatch(result.body) == nil)

        let peak = try #require(Self.memoryKiB("VmHWM", pid: larder.pid))
        print("larder VmHWM after streaming \(count >> 20) MiB to a client at 32 MB/s: \(peak) KiB")
        #expect(peak < 64 * 1024, "peak resident memory \(peak) KiB")
    }

    /// A `kB` line of `/proc/PID/status` (VmRSS, VmHWM).
    static func memoryKiB(_ field: String, pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.lines where line.hasPrefix(field + ":") {
            return Int(line.dropFirst(field.count + 1).filter(\.isNumber))
        }
        return nil
    }
}
