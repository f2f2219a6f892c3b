import Foundation
import Testing

/// Large responses stream through with backpressure: never held whole, never corrupted.
// Serialized: these move hundreds of MiB, and running them side by side would starve the timing-sensitive
// tests in other suites of CPU on a small machine.
@Suite("Streaming", .serialized)
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
        withExtendedLifetime(origin) {}
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
        withExtendedLifetime(origin) {}
    }

    @Test("a 64 MiB upload streams to the origin intact, with the daemon's peak resident memory under 64 MiB")
    func largeUpload() async throws {
        let body = Payload.pattern(64 * 1024 * 1024)
        let origin = try OriginServer { request in .ok("\(request.body.count)") }
        let larder = try await Daemon.start()
        let result = try await Curl.run(
            ["-H", "Expect:", "-X", "PUT", "--data-binary", "@-", origin.url("/upload")], via: larder, stdin: body,
            timeout: .seconds(120))
        #expect(result.exitCode == 0, "curl: \(result.stderr)")
        #expect(result.bodyText == "\(body.count)")
        #expect(Payload.same(origin.requests.first?.body ?? [], body))
        let peak = try #require(Self.memoryKiB("VmHWM", pid: larder.pid))
        print("larder VmHWM after a 64 MiB upload: \(peak) KiB")
        #expect(peak < 64 * 1024, "peak resident memory \(peak) KiB")
    }

    @Test("a client that stops reading for longer than the read timeout still gets the whole body")
    func pausedReaderOutlastsReadTimeout() async throws {
        // More than the socket buffers on both sides hold, so Larder has to pause the origin.
        let count = 32 * 1024 * 1024
        let origin = try OriginServer(always: OriginResponse(body: .generated(count: count)))
        let larder = try await Daemon.start(config: #"{"timeouts": {"read": "1s"}}"#)
        let client = try await RawClient.connect(port: larder.port)
        try await client.send("GET \(origin.url("/paused")) HTTP/1.1\r\nHost: x\r\n\r\n")
        // The pause is the behaviour under test: a reader that looks away for twice the read timeout while
        // Larder has paused the origin. Silence upstream caused by the client is not the origin's fault.
        try await Task.sleep(for: .seconds(2))
        let rest = try await client.readResponse(timeout: .seconds(30))
        #expect(rest.status == 200)
        #expect(rest.body.count == count)
        #expect(Payload.firstGeneratedMismatch(rest.body) == nil)
        withExtendedLifetime(origin) {}
    }

    @Test("a chunked response with trailer fields arrives whole")
    func chunkedWithTrailers() async throws {
        let origin = try OriginServer(
            always: OriginResponse(
                headers: [("Transfer-Encoding", "chunked"), ("Trailer", "X-Checksum")],
                body: .bytes(Array("5\r\nhello\r\n6\r\n world\r\n0\r\nX-Checksum: abc123\r\n\r\n".utf8))
            )
        )
        let larder = try await Daemon.start()
        let client = try await RawClient.connect(port: larder.port)
        for path in ["/first", "/second"] {
            try await client.send("GET \(origin.url(path)) HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 200)
            #expect(response.bodyText == "hello world")
        }
        withExtendedLifetime(origin) {}
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
