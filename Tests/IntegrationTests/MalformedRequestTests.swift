import Testing

/// Requests Larder cannot read get a clear 4xx and, where framing is in doubt, a closed connection
/// (RFC 9112 §3, §5, §6, §7.1).
@Suite("Malformed requests")
struct MalformedRequestTests {
    /// A request that must be rejected before reaching the origin; `{{origin}}` stands for the origin's
    /// `http://127.0.0.1:PORT`.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var request: String
        var status: Int
        var bodyMentions: String? = nil
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "malformed request line", request: "GARBAGE\r\n\r\n", status: 400),
        Case(name: "request line with a missing version", request: "GET {{origin}}/\r\n\r\n", status: 400),
        Case(
            name: "request line over 8 KiB",
            request: "GET {{origin}}/\(String(repeating: "a", count: 9000)) HTTP/1.1\r\nHost: x\r\n\r\n", status: 414
        ),
        Case(
            name: "header section over 64 KiB",
            request: "GET {{origin}}/ HTTP/1.1\r\nHost: x\r\n"
                + (0..<70).map { "X-Padding-\($0): \(String(repeating: "p", count: 1000))\r\n" }.joined() + "\r\n",
            status: 431
        ),
        Case(
            name: "header line without a colon",
            request: "GET {{origin}}/ HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n", status: 400
        ),
        Case(
            name: "Content-Length and Transfer-Encoding together",
            request: "POST {{origin}}/ HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "0\r\n\r\n",
            status: 400
        ),
        Case(
            name: "two differing Content-Length values",
            request: "POST {{origin}}/ HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
            status: 400
        ),
        Case(
            name: "a Content-Length that is not a number",
            request: "POST {{origin}}/ HTTP/1.1\r\nHost: x\r\nContent-Length: five\r\n\r\nhello", status: 400
        ),
        Case(
            name: "bad chunked coding",
            request:
                "POST {{origin}}/ HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nhello\r\n0\r\n\r\n",
            status: 400
        ),
        Case(name: "HTTP/2.0 request line", request: "GET {{origin}}/ HTTP/2.0\r\nHost: x\r\n\r\n", status: 505),
        Case(
            name: "a transfer coding other than chunked",
            request: "POST {{origin}}/ HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", status: 501
        ),
        Case(name: "two Host fields", request: "GET {{origin}}/ HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", status: 400),
        Case(
            name: "ftp:// URL", request: "GET ftp://127.0.0.1/file HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", status: 400,
            bodyMentions: "only http and https"
        ),
        Case(
            name: "ws:// URL", request: "GET ws://127.0.0.1/socket HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
            status: 400, bodyMentions: "only http and https"
        ),
    ]

    @Test(
        "a malformed request gets its 4xx with Proxy-Status, never reaches the origin, and the connection closes",
        arguments: cases)
    func rejected(_ testCase: Case) async throws {
        let origin = try OriginServer { _ in .ok("should not be reached") }
        let larder = try await Daemon.start()
        let client = try await RawClient.connect(port: larder.port)
        try await client.send(testCase.request.replacing("{{origin}}", with: "http://127.0.0.1:\(origin.port)"))
        let response = try await client.readResponse()
        #expect(response.status == testCase.status, "body: \(response.bodyText)")
        #expect(response.proxyStatus?.error == "http_request_error")
        if let mention = testCase.bodyMentions {
            #expect(response.bodyText.contains(mention), "body: \(response.bodyText)")
        }
        #expect(try await client.readToEnd(timeout: .seconds(5)).isEmpty)
        #expect(origin.requests.isEmpty)

        // The daemon keeps serving.
        let health = try await Curl.run(["http://127.0.0.1:\(larder.port)/_larder/health"], via: nil)
        #expect(health.status == 200)
    }

    @Test("a chunked body that turns bad midway gets 400, and the half-sent upstream request is dropped")
    func badChunkMidBody() async throws {
        let origin = try OriginServer { request in .ok("got \(request.body.count)") }
        let larder = try await Daemon.start()
        // Warm up without touching the origin, so the descriptor Dispatch opens for timers is in the baseline
        // but no pooled upstream connection is.
        _ = try await Curl.get("http://127.0.0.1:\(larder.port)/_larder/health", via: nil)
        let before = try await larder.settledFileDescriptorCount()
        let client = try await RawClient.connect(port: larder.port)
        try await client.send(
            "POST \(origin.url("/up")) HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n")
        try await Poll.until("larder to connect to the origin") { origin.connectionCount == 1 }
        try await client.send("ZZ\r\nnot hex\r\n")
        let response = try await client.readResponse()
        #expect(response.status == 400)
        #expect(try await client.readToEnd(timeout: .seconds(5)).isEmpty)
        client.close()
        // Neither the client's socket nor an upstream connection waiting for the rest of the body remains.
        await larder.expectDescriptors(atMost: before, timeout: .seconds(5))
        #expect(origin.requests.isEmpty)
    }

    @Test(
        "a request that would loop back to Larder gets 508 proxy_loop_detected",
        arguments: ["own Via", "own address", "localhost and own port"]
    )
    func loops(kind: String) async throws {
        let origin = try OriginServer { _ in .ok("should not be reached") }
        let larder = try await Daemon.start()
        let result: CurlResult
        switch kind {
        case "own Via":
            result = try await Curl.get(origin.url("/loop"), via: larder, headers: ["Via: 1.1 larder"])
        case "own address":
            result = try await Curl.get("http://127.0.0.1:\(larder.port)/loop", via: larder)
        default:
            result = try await Curl.get("http://localhost:\(larder.port)/loop", via: larder)
        }
        #expect(result.status == 508)
        #expect(result.proxyStatus?.error == "proxy_loop_detected")
        #expect(origin.requests.isEmpty)
    }
}
