import Testing

/// What the origin receives for a proxied request, and what the client gets back (RFC 9110 §7.6).
@Suite("Forwarding")
struct ForwardingTests {
    @Test(
        "each method reaches the origin with its method, target and body, and its response comes back intact",
        arguments: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
    )
    func everyMethod(method: String) async throws {
        let origin = try OriginServer { request in
            OriginResponse(
                status: 201, headers: [("X-Seen-Method", request.method)],
                body: .bytes(Array("\(request.method) \(request.target) got \(request.body.count) bytes".utf8))
            )
        }
        let larder = try await Daemon.start()
        let target = "/things/1/../2/./3//4?b=2&a=%2F&empty=&sp=%20"
        let sendsBody = !["GET", "HEAD"].contains(method)
        let requestBody = "body of a \(method)"
        // --path-as-is: curl itself would otherwise remove the dot segments before Larder sees them.
        var arguments = (method == "HEAD" ? ["-I"] : ["-X", method]) + ["--path-as-is"]
        if sendsBody { arguments += ["--data-binary", requestBody] }
        let result = try await Curl.run(arguments + [origin.url(target)], via: larder)

        #expect(result.exitCode == 0, "curl: \(result.stderr)")
        let seen = try #require(origin.requests.first)
        #expect(origin.requests.count == 1)
        #expect(seen.method == method)
        #expect(seen.target == target)
        #expect(seen.bodyText == (sendsBody ? requestBody : ""))
        #expect(result.status == 201)
        #expect(result.header("X-Seen-Method") == method)
        #expect(result.originSequence == 1)
        let expectedBody = "\(method) \(target) got \(sendsBody ? requestBody.utf8.count : 0) bytes"
        if method == "HEAD" {
            // With -I, curl writes the head where the body would go; what matters is that no body followed it.
            #expect(!result.bodyText.contains(expectedBody))
        } else {
            #expect(result.bodyText == expectedBody)
        }
        // HEAD gets the length a GET would have, as the origin said it.
        #expect(result.header("Content-Length") == "\(expectedBody.utf8.count)")
    }

    @Test("the origin's status code and reason phrase pass through unchanged")
    func statusAndReason() async throws {
        let origin = try OriginServer(
            always: OriginResponse(status: 299, reason: "Quite Unusual", body: .bytes(Array("odd".utf8))))
        let larder = try await Daemon.start()
        let client = try await RawClient.connect(port: larder.port)
        try await client.send("GET \(origin.url("/odd")) HTTP/1.1\r\nHost: 127.0.0.1:\(origin.port)\r\n\r\n")
        let response = try await client.readResponse()
        #expect(response.status == 299)
        #expect(response.reason == "Quite Unusual")
        #expect(response.bodyText == "odd")
        withExtendedLifetime(origin) {}
    }

    @Test("Host is rewritten from the absolute URL, whatever Host the client sent")
    func hostFromURL() async throws {
        let origin = try OriginServer { _ in .ok("hi") }
        let larder = try await Daemon.start()
        let client = try await RawClient.connect(port: larder.port)
        try await client.send("GET \(origin.url("/h")) HTTP/1.1\r\nHost: somewhere-else.example\r\n\r\n")
        let response = try await client.readResponse()
        #expect(response.status == 200)
        #expect(origin.requests.first?.headers("Host") == ["127.0.0.1:\(origin.port)"])
    }

    @Test("hop-by-hop request fields never reach the origin, end-to-end ones do, and Via: 1.1 larder is added")
    func hopByHopRequestFields() async throws {
        let origin = try OriginServer { _ in .ok("hi") }
        let larder = try await Daemon.start()
        let client = try await RawClient.connect(port: larder.port)
        try await client.send(
            "GET \(origin.url("/hop")) HTTP/1.1\r\n"
                + "Host: 127.0.0.1:\(origin.port)\r\n"
                + "Connection: keep-alive, X-Named-Hop\r\n"
                + "X-Named-Hop: secret\r\n"
                + "Keep-Alive: timeout=5\r\n"
                + "Proxy-Connection: keep-alive\r\n"
                + "Proxy-Authorization: Basic dXNlcjpwYXNz\r\n"
                + "TE: trailers\r\n"
                + "Trailer: X-Checksum\r\n"
                + "Upgrade: websocket\r\n"
                + "X-End-To-End: kept\r\n"
                + "Via: 1.0 corporate-proxy\r\n"
                + "\r\n"
        )
        let response = try await client.readResponse()
        #expect(response.status == 200)
        let seen = try #require(origin.requests.first)
        let hopByHop = [
            "Connection", "X-Named-Hop", "Keep-Alive", "Proxy-Connection", "Proxy-Authorization", "TE", "Trailer",
            "Upgrade",
        ]
        for name in hopByHop {
            #expect(seen.header(name) == nil, "\(name) reached the origin")
        }
        #expect(seen.header("X-End-To-End") == "kept")
        // The client's Via stays and Larder's is appended (RFC 9110 §7.6.3).
        let via = seen.headers("Via").joined(separator: ", ")
        #expect(via == "1.0 corporate-proxy, 1.1 larder")
    }

    @Test("hop-by-hop response fields never reach the client, end-to-end ones do, and Via: 1.1 larder is added")
    func hopByHopResponseFields() async throws {
        let origin = try OriginServer(
            always: OriginResponse(
                headers: [
                    ("Connection", "X-Named-Hop"), ("X-Named-Hop", "secret"), ("Keep-Alive", "timeout=5, max=100"),
                    ("Proxy-Connection", "keep-alive"), ("Proxy-Authenticate", "Basic realm=\"origin\""),
                    ("Trailer", "X-Checksum"), ("Upgrade", "h2c"), ("X-End-To-End", "kept"),
                ],
                body: .bytes(Array("hi".utf8))
            )
        )
        let larder = try await Daemon.start()
        let result = try await Curl.get(origin.url("/hop"), via: larder)
        #expect(result.exitCode == 0, "curl: \(result.stderr)")
        #expect(result.bodyText == "hi")
        for name in ["X-Named-Hop", "Keep-Alive", "Proxy-Connection", "Proxy-Authenticate", "Trailer", "Upgrade"] {
            #expect(result.header(name) == nil, "\(name) reached the client")
        }
        #expect(!(result.header("Connection") ?? "").lowercased().contains("x-named-hop"))
        #expect(result.header("X-End-To-End") == "kept")
        #expect(result.headers("Via") == ["1.1 larder"])
        withExtendedLifetime(origin) {}
    }

    @Test("repeated Set-Cookie fields and the order of the origin's fields are kept")
    func fieldOrderAndRepeats() async throws {
        let fields = [
            ("Set-Cookie", "a=1; Path=/"), ("X-First", "1"), ("Set-Cookie", "b=2; HttpOnly"), ("X-Second", "two"),
            ("set-cookie", "c=3"), ("X-Third", "3, with a comma"),
        ]
        let origin = try OriginServer(always: OriginResponse(headers: fields, body: .bytes(Array("ok".utf8))))
        let larder = try await Daemon.start()
        let result = try await Curl.get(origin.url("/cookies"), via: larder)
        #expect(result.exitCode == 0, "curl: \(result.stderr)")
        #expect(result.headers("Set-Cookie") == ["a=1; Path=/", "b=2; HttpOnly", "c=3"])
        let names = Set(fields.map { $0.0.lowercased() })
        let passed = result.headers.filter { names.contains($0.name.lowercased()) }
        #expect(passed.map(\.name) == fields.map(\.0))
        #expect(passed.map(\.value) == fields.map(\.1))
        withExtendedLifetime(origin) {}
    }

    @Test("request fields reach the origin in the client's order, with repeats and empty values kept")
    func requestFieldOrder() async throws {
        let origin = try OriginServer { _ in .ok("hi") }
        let larder = try await Daemon.start()
        let client = try await RawClient.connect(port: larder.port)
        try await client.send(
            "GET \(origin.url("/order")) HTTP/1.1\r\nHost: x\r\nX-B: 1\r\nAccept: text/plain\r\nX-A: 2\r\n"
                + "X-B: 3\r\nX-Empty:\r\nCookie: a=1\r\n\r\n"
        )
        #expect(try await client.readResponse().status == 200)
        let seen = try #require(origin.requests.first)
        let sent = ["X-B", "Accept", "X-A", "X-Empty", "Cookie"]
        let passed = seen.headers.filter { field in sent.contains { $0.lowercased() == field.name.lowercased() } }
        #expect(passed.map(\.name) == ["X-B", "Accept", "X-A", "X-B", "X-Empty", "Cookie"])
        #expect(passed.map(\.value) == ["1", "text/plain", "2", "3", "", "a=1"])
    }

    @Test("libcurl adds no fields of its own: a bare request reaches the origin with only Host and Via")
    func noAddedFields() async throws {
        let origin = try OriginServer { _ in .ok("hi") }
        let larder = try await Daemon.start()
        let client = try await RawClient.connect(port: larder.port)
        try await client.send("GET \(origin.url("/bare")) HTTP/1.1\r\nHost: 127.0.0.1:\(origin.port)\r\n\r\n")
        #expect(try await client.readResponse().status == 200)

        // A body large enough that libcurl would add `Expect: 100-continue` by default (over 1 MiB).
        let body = Payload.pattern(1_500_000)
        try await client.send(
            Array("POST \(origin.url("/upload")) HTTP/1.1\r\nHost: 127.0.0.1:\(origin.port)\r\n".utf8)
                + Array("Content-Length: \(body.count)\r\n\r\n".utf8) + body
        )
        #expect(try await client.readResponse().status == 200)

        let requests = origin.requests
        try #require(requests.count == 2)
        #expect(requests[0].headers.map { $0.name.lowercased() }.sorted() == ["host", "via"])
        #expect(requests[1].headers.map { $0.name.lowercased() }.sorted() == ["content-length", "host", "via"])
        #expect(Payload.same(requests[1].body, body))
    }

    @Test("a gzip body passes byte for byte with its Content-Encoding: libcurl does not decompress it")
    func noDecompression() async throws {
        // gzip of "hello hello hello hello\n".
        let gzip: [UInt8] = [
            31, 139, 8, 0, 0, 0, 0, 0, 2, 3, 203, 72, 205, 201, 201, 87, 200, 64, 39, 185, 0, 0, 136, 89, 11, 24, 0, 0,
            0,
        ]
        let origin = try OriginServer(
            always: OriginResponse(
                headers: [("Content-Encoding", "gzip"), ("Content-Type", "text/plain")], body: .bytes(gzip)))
        let larder = try await Daemon.start()
        let result = try await Curl.get(origin.url("/z"), via: larder, headers: ["Accept-Encoding: gzip"])
        #expect(result.exitCode == 0, "curl: \(result.stderr)")
        #expect(result.body == gzip)
        #expect(result.header("Content-Encoding") == "gzip")
        #expect(result.header("Content-Length") == "\(gzip.count)")
        #expect(origin.requests.first?.header("Accept-Encoding") == "gzip")
    }

    @Test("a 302 is returned as it is: libcurl does not follow redirects")
    func noRedirects() async throws {
        let origin = try OriginServer { request in
            request.path == "/from"
                ? OriginResponse(status: 302, headers: [("Location", "/to")], body: .bytes(Array("moved".utf8)))
                : .ok("the target")
        }
        let larder = try await Daemon.start()
        let result = try await Curl.get(origin.url("/from"), via: larder)
        #expect(result.exitCode == 0, "curl: \(result.stderr)")
        #expect(result.status == 302)
        #expect(result.header("Location") == "/to")
        #expect(result.bodyText == "moved")
        #expect(origin.requests.map(\.path) == ["/from"])
    }

    @Test("the daemon ignores an http_proxy it inherited and still reaches the origin directly")
    func ignoresInheritedProxy() async throws {
        // A port that refuses connections: where requests would die if libcurl used the variable.
        let dead = try RefusingPort()
        let deadProxy = "http://127.0.0.1:\(dead.port)"
        let origin = try OriginServer { _ in .ok("direct") }
        let larder = try await Daemon.start(
            environment: [
                "http_proxy": deadProxy, "HTTP_PROXY": deadProxy, "https_proxy": deadProxy, "ALL_PROXY": deadProxy,
                "all_proxy": deadProxy,
            ]
        )
        let result = try await Curl.get(origin.url("/direct"), via: larder)
        #expect(result.exitCode == 0, "curl: \(result.stderr)")
        #expect(result.status == 200)
        #expect(result.bodyText == "direct")
        #expect(origin.requests.count == 1)
        withExtendedLifetime(dead) {}
    }
}
