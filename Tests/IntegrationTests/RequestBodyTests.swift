import Testing

/// Request bodies are streamed to the origin as they arrive, whatever their framing (RFC 9112 §6).
@Suite("Request bodies")
struct RequestBodyTests {
    /// How curl frames an upload, and the framing field the origin should see.
    struct Framing: Sendable, CustomTestStringConvertible {
        var name: String
        var curlArguments: [String]
        var originField: (String, String?)
        var testDescription: String { name }
    }

    @Test(
        "a 3 MiB request body reaches the origin intact",
        arguments: [
            Framing(
                name: "Content-Length", curlArguments: ["-H", "Expect:"], originField: ("Content-Length", "3145728")),
            Framing(
                name: "chunked", curlArguments: ["-H", "Expect:", "-H", "Transfer-Encoding: chunked"],
                originField: ("Transfer-Encoding", "chunked")
            ),
        ]
    )
    func streamedUpload(framing: Framing) async throws {
        let body = Payload.pattern(3 * 1024 * 1024)
        let origin = try OriginServer { request in .ok("\(request.body.count)") }
        let larder = try await Daemon.start()
        let result = try await Curl.run(
            framing.curlArguments + ["-X", "PUT", "--data-binary", "@-", origin.url("/upload")],
            via: larder, stdin: body
        )
        #expect(result.exitCode == 0, "curl: \(result.stderr)")
        #expect(result.bodyText == "\(body.count)")
        let seen = try #require(origin.requests.first)
        #expect(seen.method == "PUT")
        #expect(seen.header(framing.originField.0) == framing.originField.1)
        #expect(seen.body.count == body.count)
        #expect(Payload.same(seen.body, body))
    }

    @Test("curl's Expect: 100-continue for a large body gets a 100 from Larder, so the upload never stalls")
    func expectContinueWithCurl() async throws {
        let body = Payload.pattern(2 * 1024 * 1024)
        let origin = try OriginServer { request in .ok("\(request.body.count)") }
        let larder = try await Daemon.start()
        // curl waits this long for a 100 before sending anyway; the curl timeout below is shorter, so only
        // a real 100 Continue lets this finish.
        let result = try await Curl.run(
            ["--expect100-timeout", "60", "-H", "Expect: 100-continue", "--data-binary", "@-", origin.url("/up")],
            via: larder, stdin: body, timeout: .seconds(20)
        )
        #expect(result.exitCode == 0, "curl: \(result.stderr)")
        #expect(result.bodyText == "\(body.count)")
        #expect(Payload.same(origin.requests.first?.body ?? [], body))
        // Larder answered the expectation itself; the origin never saw it.
        #expect(origin.requests.first?.header("Expect") == nil)
    }

    @Test("Expect: 100-continue gets an interim 100 before the body is sent, then the final response")
    func expectContinueRaw() async throws {
        let origin = try OriginServer { request in .ok("got \(request.bodyText)") }
        let larder = try await Daemon.start()
        let client = try await RawClient.connect(port: larder.port)
        try await client.send(
            "POST \(origin.url("/up")) HTTP/1.1\r\nHost: 127.0.0.1:\(origin.port)\r\n"
                + "Content-Length: 5\r\nExpect: 100-continue\r\n\r\n"
        )
        let interim = try await client.readResponse()
        #expect(interim.status == 100)
        try await client.send("hello")
        let final = try await client.readResponse()
        #expect(final.status == 200)
        #expect(final.bodyText == "got hello")
        withExtendedLifetime(origin) {}
    }
}
