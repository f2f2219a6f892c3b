import Testing

/// Large stored bodies are streamed from their files with backpressure, and a client leaving mid-body leaks no
/// descriptor.
@Suite("Cache file serving")
struct CacheFileServingTests {
    @Test("a 24 MiB stored body reaches a slow client whole, and clients leaving mid-body leak no descriptors")
    func largeBodiesFromFiles() async throws {
        let size = 24 * 1024 * 1024
        let origin = try OriginServer(
            always: OriginResponse(headers: [("Cache-Control", "max-age=600")], body: .generated(count: size)))
        let larder = try await Daemon.start()
        let url = origin.url("/huge")
        let miss = try await Curl.get(url, via: larder)
        #expect(miss.xCache == "MISS")
        #expect(miss.body.count == size)
        let baseline = try await larder.settledFileDescriptorCount()

        let slow = try await Curl.run(["--limit-rate", "48M", url], via: larder, timeout: .seconds(60))
        #expect(slow.xCache == "HIT")
        #expect(slow.body.count == size)
        #expect(Payload.firstGeneratedMismatch(slow.body) == nil)

        // Clients that read a little of the body and go.
        for _ in 0..<5 {
            let client = try await RawClient.connect(port: larder.port)
            try await client.send("GET \(url) HTTP/1.1\r\nHost: 127.0.0.1:\(origin.port)\r\n\r\n")
            let first = try await client.readAvailable()
            #expect(String(decoding: first.prefix(12), as: UTF8.self) == "HTTP/1.1 200")
            _ = try await client.read(count: 64 * 1024)
            client.close()
        }
        await larder.expectDescriptors(atMost: baseline)
        #expect(try await Curl.get(url, via: larder).body.count == size)
        #expect(origin.requests.count == 1)
    }
}
