import Testing

/// The harness checked against curl and itself, without the daemon: if these fail, no integration test
/// result means anything.
@Suite("Integration harness")
struct HarnessSelfTests {
    @Test("the origin sends the scripted status, reason, fields in order, repeated Set-Cookie and body")
    func scriptedResponse() async throws {
        let origin = try OriginServer { _ in
            OriginResponse(
                status: 201, reason: "Made It",
                headers: [("Set-Cookie", "a=1"), ("X-Thing", "yes"), ("Set-Cookie", "b=2")],
                body: .bytes(Array("hello".utf8))
            )
        }
        let result = try await Curl.run(["-w", "%{http_code}", origin.url("/x")], via: nil)
        #expect(result.exitCode == 0)
        #expect(result.status == 201)
        #expect(result.stdout == "201")
        #expect(result.headers("set-cookie") == ["a=1", "b=2"])
        #expect(
            result.headers.map(\.name) == ["Set-Cookie", "X-Thing", "Set-Cookie", "Content-Length", "X-Origin-Seq"])
        #expect(result.header("content-length") == "5")
        #expect(result.originSequence == 1)
        #expect(result.bodyText == "hello")
    }

    @Test("a chunked body arrives whole, framed by Transfer-Encoding and without Content-Length")
    func chunkedBody() async throws {
        let origin = try OriginServer(
            always: OriginResponse(body: .chunked([Array("abc".utf8), [], Array("defg".utf8)])))
        let result = try await Curl.get(origin.url("/c"), via: nil)
        #expect(result.exitCode == 0)
        #expect(result.header("Transfer-Encoding") == "chunked")
        #expect(result.header("Content-Length") == nil)
        #expect(result.bodyText == "abcdefg")
    }

    @Test("a generated 10 MiB body arrives intact, byte i being i % 251")
    func generatedBody() async throws {
        let count = 10 * 1024 * 1024
        let origin = try OriginServer(always: OriginResponse(body: .generated(count: count)))
        let result = try await Curl.get(origin.url("/big"), via: nil)
        #expect(result.exitCode == 0)
        #expect(result.header("Content-Length") == "\(count)")
        #expect(result.body.count == count)
        let firstWrong = result.body.indices.first { result.body[$0] != OriginResponse.Body.generatedByte(at: $0) }
        #expect(firstWrong == nil)
    }

    @Test("HEAD gets the head only, with the length a GET would have")
    func headRequest() async throws {
        let origin = try OriginServer(always: OriginResponse(body: .generated(count: 1000)))
        let result = try await Curl.run(["-I", origin.url("/h")], via: nil)
        #expect(result.exitCode == 0)
        #expect(result.status == 200)
        #expect(result.header("Content-Length") == "1000")
        #expect(origin.requests.map(\.method) == ["HEAD"])
    }

    @Test("304 carries no body and no made-up Content-Length")
    func notModified() async throws {
        let origin = try OriginServer(always: OriginResponse(status: 304, headers: [("ETag", "\"v1\"")]))
        let result = try await Curl.get(origin.url("/n"), via: nil, headers: ["If-None-Match: \"v1\""])
        #expect(result.exitCode == 0)
        #expect(result.status == 304)
        #expect(result.header("Content-Length") == nil)
        #expect(result.header("ETag") == "\"v1\"")
    }

    @Test(
        "each fault makes curl fail the way a broken origin would",
        arguments: [
            (OriginResponse.Fault.closeWithoutResponse, Int32(52)),
            (.cutBody(afterBytes: 10), 18),
            (.stall, 28),
        ]
    )
    func faults(fault: OriginResponse.Fault, curlExit: Int32) async throws {
        let origin = try OriginServer(always: OriginResponse(body: .generated(count: 100), fault: fault))
        let result = try await Curl.run(["--max-time", "0.5", origin.url("/f")], via: nil)
        #expect(result.exitCode == curlExit, "stderr: \(result.stderr)")
        #expect(origin.requests.count == 1)
    }

    @Test("a garbage reply and a chunked body cut short both fail in curl")
    func garbageAndCutChunks() async throws {
        let garbage = try OriginServer(always: OriginResponse(fault: .garbage))
        let bad = try await Curl.get(garbage.url("/g"), via: nil)
        #expect(bad.exitCode != 0)
        #expect(bad.status == 0)

        let cut = try OriginServer(
            always: OriginResponse(
                body: .chunked([Array("abcdef".utf8), Array("ghij".utf8)]), fault: .cutBody(afterBytes: 8))
        )
        let short = try await Curl.get(cut.url("/c"), via: nil)
        #expect(short.exitCode == 18)
        #expect(short.bodyText == "abcdefgh")
    }

    @Test("the origin records method, target, version, fields and a Content-Length body")
    func recordsRequests() async throws {
        let origin = try OriginServer { _ in .ok("ok") }
        let result = try await Curl.run(
            [
                "-X", "PUT", "-H", "X-Custom: one", "-H", "x-custom: two", "--data-binary", "payload",
                origin.url("/path?q=1&r=2"),
            ],
            via: nil
        )
        #expect(result.exitCode == 0)
        let request = try #require(origin.requests.first)
        #expect(request.method == "PUT")
        #expect(request.target == "/path?q=1&r=2")
        #expect(request.path == "/path")
        #expect(request.version == "HTTP/1.1")
        #expect(request.header("X-CUSTOM") == "one")
        #expect(request.headers("x-custom") == ["one", "two"])
        #expect(request.headers.contains { $0.name == "X-Custom" })
        #expect(request.header("Host") == "127.0.0.1:\(origin.port)")
        #expect(request.bodyText == "payload")
        #expect(request.sequence == 1)
    }

    @Test("a chunked request body from stdin and a 2 MiB body with Expect: 100-continue are decoded")
    func requestBodies() async throws {
        let origin = try OriginServer { request in .ok("\(request.body.count)") }
        let chunked = try await Curl.run(
            ["-H", "Transfer-Encoding: chunked", "--data-binary", "@-", origin.url("/up")],
            via: nil, stdin: Array("streamed body".utf8)
        )
        #expect(chunked.exitCode == 0)
        #expect(origin.requests.first?.bodyText == "streamed body")
        #expect(origin.requests.first?.header("Transfer-Encoding") == "chunked")

        let big = [UInt8](repeating: 0x61, count: 2 * 1024 * 1024)
        let upload = try await Curl.run(
            ["-H", "Expect: 100-continue", "--data-binary", "@-", origin.url("/big")], via: nil, stdin: big
        )
        #expect(upload.exitCode == 0)
        #expect(upload.bodyText == "\(big.count)")
        #expect(origin.requests.last?.body.count == big.count)
        #expect(origin.requests.last?.body.allSatisfy { $0 == 0x61 } == true)
    }

    @Test("X-Origin-Seq counts requests; each curl run is a new connection")
    func sequenceNumbers() async throws {
        let origin = try OriginServer { request in .ok(request.target) }
        for expected in 1...3 {
            let result = try await Curl.get(origin.url("/\(expected)"), via: nil)
            #expect(result.originSequence == expected)
            #expect(result.bodyText == "/\(expected)")
        }
        #expect(origin.requests.map(\.sequence) == [1, 2, 3])
        #expect(origin.connectionCount == 3)
    }

    @Test("pipelined requests on one connection are answered in order, on that one connection")
    func keepAliveAndPipelining() async throws {
        let origin = try OriginServer { request in .ok("body of \(request.target)") }
        let client = try await RawClient.connect(port: origin.port)
        try await client.send(
            "GET /one HTTP/1.1\r\nHost: a\r\n\r\nHEAD /two HTTP/1.1\r\nHost: a\r\n\r\nGET /three HTTP/1.1\r\nHost: a\r\n\r\n"
        )
        let one = try await client.readResponse()
        let two = try await client.readResponse(method: "HEAD")
        let three = try await client.readResponse()
        #expect(one.bodyText == "body of /one")
        #expect(two.header("Content-Length") == "\("body of /two".utf8.count)")
        #expect(two.body.isEmpty)
        #expect(three.bodyText == "body of /three")
        #expect([one, two, three].map { $0.header("X-Origin-Seq") } == ["1", "2", "3"])
        #expect(origin.connectionCount == 1)

        try await client.send("GET /last HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
        let last = try await client.readResponse()
        #expect(last.header("Connection") == "close")
        #expect(try await client.readToEnd().isEmpty)
    }

    @Test("a raw exchange returns the reply bytes, and a malformed request gets 400")
    func rawExchange() async throws {
        let origin = try OriginServer { _ in .ok("hi") }
        let reply = try await RawClient.exchange(port: origin.port, send: "GET / HTTP/1.0\r\n\r\n")
        #expect(reply.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(reply.hasSuffix("\r\n\r\nhi"))
        let bad = try await RawClient.exchange(port: origin.port, send: "NONSENSE\r\n\r\n")
        #expect(bad.hasPrefix("HTTP/1.1 400 "))
        #expect(origin.requests.count == 1)
    }

    @Test("stop() refuses new connections and cuts a delayed response short")
    func stopCutsDelays() async throws {
        let origin = try OriginServer(always: OriginResponse(body: .bytes([1]), delay: .seconds(60)))
        let client = try await RawClient.connect(port: origin.port)
        try await client.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        try await Poll.until("the origin to receive the request") { origin.requests.count == 1 }
        origin.stop()
        #expect(try await client.readToEnd(timeout: .seconds(5)).isEmpty)
        await #expect(throws: HarnessError.self) { try await RawClient.connect(port: origin.port) }
    }

    @Test("the echo server echoes, half-closes after the client does, and counts connections")
    func echo() async throws {
        let echo = try TCPEchoServer()
        let client = try await RawClient.connect(port: echo.port)
        try await client.send("ping")
        #expect(try await client.read(count: 4) == Array("ping".utf8))
        try await client.send([0, 255, 10])
        #expect(try await client.read(count: 3) == [0, 255, 10])
        client.shutdownWrite()
        #expect(try await client.readToEnd().isEmpty)
        let second = try await RawClient.exchange(
            port: echo.port, send: Array("again".utf8), timeout: .milliseconds(300))
        #expect(second == Array("again".utf8))
        #expect(echo.connectionCount == 2)
    }

    @Test(
        "the daemon's listening line yields its port",
        arguments: [
            ("ts=2026-11-23T01:02:03.456Z level=info msg=listening address=127.0.0.1:43123", 43123),
            ("level=info msg=\"listening\" address=\"127.0.0.1:8080\" other=x", 8080),
            ("level=info msg=listening listen_address=127.0.0.1:1", nil),
            ("level=info msg=started address=127.0.0.1:43123", nil),
        ] as [(String, Int?)]
    )
    func listeningLine(line: String, port: Int?) {
        #expect(Daemon.listeningPort(in: line) == port)
    }
}
