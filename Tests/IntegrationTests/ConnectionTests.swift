import Foundation
import Testing

/// Client connections: persistence, HTTP/1.0, pipelining, timeouts and the connection limit (RFC 9112 §9).
@Suite("Client connections")
struct ConnectionTests {
    @Test("two URLs in one curl run share one client connection, and Larder reuses one origin connection")
    func keepAliveReuse() async throws {
        let origin = try OriginServer { request in .ok("body of \(request.path)") }
        let larder = try await Daemon.start()
        // The harness's `-o` takes the first URL's body; this one takes the second's.
        let result = try await Curl.run(
            ["-w", "%{num_connects} ", origin.url("/one"), "-o", "/dev/null", origin.url("/two")], via: larder)
        #expect(result.exitCode == 0, "curl: \(result.stderr)")
        #expect(result.stdout == "1 0 ")
        #expect(result.bodyText == "body of /one")
        #expect(origin.requests.map(\.path) == ["/one", "/two"])
        #expect(origin.connectionCount == 1)
    }

    @Test("separate clients' requests to one origin reuse upstream connections: at most one per lane")
    func upstreamReuseAcrossClients() async throws {
        let origin = try OriginServer { request in .ok("body of \(request.path)") }
        let larder = try await Daemon.start()
        // Each lane (one per CPU the daemon may use, as the test may) keeps its own upstream connections, and clients
        // are dealt to the lanes in turn: three clients per lane, one after another, need one connection per lane.
        let lanes = ProcessInfo.processInfo.activeProcessorCount
        let paths = (0..<3 * lanes).map { "/\($0)" }
        for path in paths {
            let result = try await Curl.get(origin.url(path), via: larder)
            #expect(result.bodyText == "body of \(path)")
        }
        #expect(origin.requests.count == paths.count)
        #expect(origin.connectionCount <= lanes, "\(origin.connectionCount) connections for \(lanes) lanes")
    }

    @Test("an origin closing a pooled connection costs Larder no CPU while idle, and the next request connects anew")
    func pooledConnectionClosedByOrigin() async throws {
        let origin = try OriginServer { request in .ok("body of \(request.path)") }
        let larder = try await Daemon.start()
        let first = try await Curl.get(origin.url("/first"), via: larder)
        #expect(first.bodyText == "body of /first")
        // The origin's keep-alive timeout, in effect: the connection Larder pooled is closed under it.
        origin.closeOpenConnections()
        try await Poll.until("the origin's connection to end") { origin.openConnectionCount == 0 }
        // A pooled socket left watched after it turned readable (end of stream) would wake Larder's loop on every
        // turn: a whole core for as long as the pool keeps it. Idle, Larder wakes only for its sweeps.
        let before = try larder.cpuTime()
        let window = ContinuousClock.now
        try await Task.sleep(for: .seconds(1))  // a measurement window, not a wait for anything
        let used = try larder.cpuTime() - before
        let elapsed = ContinuousClock.now - window
        #expect(used < elapsed / 4, "larder used \(used) of CPU in \(elapsed) while idle")

        let second = try await Curl.get(origin.url("/second"), via: larder)
        #expect(second.bodyText == "body of /second")
        #expect(origin.connectionCount == 2)
    }

    @Test("an HTTP/1.0 client gets a chunked origin body whole, delimited by the connection's close")
    func http10Client() async throws {
        let origin = try OriginServer(
            always: OriginResponse(body: .chunked([Array("first ".utf8), Array("second".utf8)])))
        let larder = try await Daemon.start()
        let result = try await Curl.run(["--http1.0", origin.url("/old")], via: larder)
        #expect(result.exitCode == 0, "curl: \(result.stderr)")
        #expect(result.bodyText == "first second")
        #expect(result.header("Transfer-Encoding") == nil)

        let client = try await RawClient.connect(port: larder.port)
        try await client.send("GET \(origin.url("/raw")) HTTP/1.0\r\n\r\n")
        let response = try await client.readResponse()
        #expect(response.status == 200)
        #expect(response.bodyText == "first second")
        #expect(response.header("Transfer-Encoding") == nil)
        #expect(try await client.readToEnd(timeout: .seconds(5)).isEmpty)
        withExtendedLifetime(origin) {}
    }

    @Test("an HTTP/1.0 client asking for keep-alive keeps its connection for a second request")
    func http10KeepAlive() async throws {
        let origin = try OriginServer { request in .ok("body of \(request.path)") }
        let larder = try await Daemon.start()
        let client = try await RawClient.connect(port: larder.port)
        for path in ["/a", "/b"] {
            try await client.send("GET \(origin.url(path)) HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.bodyText == "body of \(path)")
            #expect(response.header("Connection")?.lowercased() == "keep-alive")
        }
        withExtendedLifetime(origin) {}
    }

    @Test("Connection: close gets its response and then the connection closes")
    func connectionClose() async throws {
        let origin = try OriginServer { _ in .ok("bye") }
        let larder = try await Daemon.start()
        let client = try await RawClient.connect(port: larder.port)
        try await client.send(
            "GET \(origin.url("/c")) HTTP/1.1\r\nHost: 127.0.0.1:\(origin.port)\r\nConnection: close\r\n\r\n")
        let response = try await client.readResponse()
        #expect(response.status == 200)
        #expect(response.bodyText == "bye")
        #expect(response.header("Connection")?.lowercased() == "close")
        #expect(try await client.readToEnd(timeout: .seconds(5)).isEmpty)
        withExtendedLifetime(origin) {}
    }

    @Test("pipelined requests are answered in order, even when the first one's origin is slowest")
    func pipelining() async throws {
        let origin = try OriginServer { request in
            var response = OriginResponse.ok("body of \(request.path)")
            if request.path == "/one" { response.delay = .milliseconds(300) }
            return response
        }
        let larder = try await Daemon.start()
        let client = try await RawClient.connect(port: larder.port)
        let host = "Host: 127.0.0.1:\(origin.port)\r\n"
        try await client.send(
            "GET \(origin.url("/one")) HTTP/1.1\r\n\(host)\r\n"
                + "HEAD \(origin.url("/two")) HTTP/1.1\r\n\(host)\r\n"
                + "GET \(origin.url("/three")) HTTP/1.1\r\n\(host)\r\n"
        )
        let one = try await client.readResponse()
        let two = try await client.readResponse(method: "HEAD")
        let three = try await client.readResponse()
        #expect(one.bodyText == "body of /one")
        #expect(two.status == 200)
        #expect(two.body.isEmpty)
        #expect(two.header("Content-Length") == "\("body of /two".utf8.count)")
        #expect(three.bodyText == "body of /three")
        #expect(origin.requests.map(\.path) == ["/one", "/two", "/three"])
    }

    @Test("a pipelined burst far larger than Larder buffers, sent in one write, is answered whole and in order")
    func pipelinedBurst() async throws {
        // About 600 KiB of heads: Larder stops reading at its buffer limit and must come back for the rest by
        // itself, with no new readiness event to tell it the bytes are there.
        let origin = try OriginServer { request in .ok("body of \(request.path)", cacheControl: "max-age=60") }
        let larder = try await Daemon.start()
        let client = try await RawClient.connect(port: larder.port)
        let host = "Host: 127.0.0.1:\(origin.port)\r\n"
        let padding = "X-Padding: \(String(repeating: "p", count: 2_000))\r\n"
        let count = 300
        let burst = (0..<count).map { "GET \(origin.url("/r\($0 % 10)")) HTTP/1.1\r\n\(host)\(padding)\r\n" }.joined()
        try await client.send(burst)
        for index in 0..<count {
            let response = try await client.readResponse()
            #expect(response.bodyText == "body of /r\(index % 10)", "response \(index)")
        }
        // Ten URLs, each fetched once and then served from the cache.
        #expect(origin.requests.count == 10)
    }

    @Test("a client trickling its request head a byte at a time is still cut off by the header timeout")
    func slowHeadTimeout() async throws {
        let larder = try await Daemon.start(config: #"{"timeouts": {"header": "1s"}}"#)
        let client = try await RawClient.connect(port: larder.port)
        let padding = String(repeating: "s", count: 100)
        let head = Array("GET http://127.0.0.1:9/ HTTP/1.1\r\nHost: 127.0.0.1:9\r\nX-Slow: \(padding)\r\n\r\n".utf8)
        let started = ContinuousClock.now
        var cutOff = false
        // The trickle itself is the behaviour under test: one byte every 100 ms, about 13 s for the whole head.
        for byte in head {
            do {
                try await client.send([byte])
            } catch {
                cutOff = true
                break
            }
            if let reply = try? await client.readAvailable(timeout: .milliseconds(100)) {
                let text = String(decoding: reply, as: UTF8.self)
                #expect(reply.isEmpty || text.hasPrefix("HTTP/1.1 408 "), "reply: \(text)")
                cutOff = true
                break
            }
        }
        #expect(cutOff, "the whole head was accepted byte by byte")
        // Well below the 30 s default, with room for a loaded machine: the configured 1 s applied.
        #expect(ContinuousClock.now - started < .seconds(20))
    }

    @Test("an idle keep-alive connection is closed after the idle timeout")
    func idleTimeout() async throws {
        let larder = try await Daemon.start(config: #"{"timeouts": {"idle": "1s"}}"#)
        let client = try await RawClient.connect(port: larder.port)
        try await client.send("GET /_larder/health HTTP/1.1\r\nHost: larder\r\n\r\n")
        // On a starved machine the request may arrive after the idle timeout has already closed the fresh
        // connection; that is the same rule, so the answer is not required. (That keep-alive connections stay
        // open while in use is shown by the reuse and pipelining tests.)
        if let response = try? await client.readResponse() { #expect(response.status == 200) }
        let quietSince = ContinuousClock.now
        #expect(try await client.readToEnd(timeout: .seconds(15)).isEmpty)
        // Far below the 60 s default: the configured 1 s applied.
        #expect(ContinuousClock.now - quietSince < .seconds(30))
    }

    @Test("responses without a body (HEAD, 204, 304) keep the connection's framing for the next request")
    func bodilessResponses() async throws {
        let origin = try OriginServer { request in
            switch request.path {
            case "/204": OriginResponse(status: 204)
            case "/304": OriginResponse(status: 304, headers: [("ETag", "\"v1\"")])
            default: .ok("body of \(request.path)")
            }
        }
        let larder = try await Daemon.start()
        let client = try await RawClient.connect(port: larder.port)
        for (method, path, status) in [("GET", "/204", 204), ("HEAD", "/head", 200), ("GET", "/304", 304)] {
            try await client.send("\(method) \(origin.url(path)) HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try await client.readResponse(method: method)
            #expect(response.status == status)
            #expect(response.header("Transfer-Encoding") == nil)
            try await client.send("GET \(origin.url("/after\(path)")) HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().bodyText == "body of /after\(path)")
        }
        #expect(origin.requests.count == 6)
    }

    @Test("a client that sends half a request head is answered 408 or cut off after the header timeout")
    func headerTimeout() async throws {
        let larder = try await Daemon.start(config: #"{"timeouts": {"header": "1s"}}"#)
        let client = try await RawClient.connect(port: larder.port)
        try await client.send("GET http://127.0.0.1:9/ HTTP/1.1\r\nHost: 127.0.0.1:9\r\n")
        let started = ContinuousClock.now
        let reply = String(decoding: try await client.readToEnd(timeout: .seconds(15)), as: UTF8.self)
        #expect(reply.isEmpty || reply.hasPrefix("HTTP/1.1 408 "), "reply: \(reply)")
        // Below the 30 s default: the configured 1 s applied.
        #expect(ContinuousClock.now - started < .seconds(20))
    }

    @Test("beyond limits.maxConnections a new client gets 503, and is served again once a slot frees")
    func connectionLimit() async throws {
        let larder = try await Daemon.start(config: #"{"limits": {"maxConnections": 2}}"#)
        let health = "GET /_larder/health HTTP/1.1\r\nHost: larder\r\n\r\n"
        // Two clients that stay connected, each proven accepted by an answer.
        let first = try await RawClient.connect(port: larder.port)
        let second = try await RawClient.connect(port: larder.port)
        for client in [first, second] {
            try await client.send(health)
            #expect(try await client.readResponse().status == 200)
        }

        let third = try await RawClient.connect(port: larder.port)
        try await third.send(health)
        let refused = try await third.readResponse()
        #expect(refused.status == 503)
        #expect(refused.proxyStatus?.error == "connection_limit_reached")

        first.close()
        // Polled like `Poll`, but each probe is a request: a new client until one is served.
        let deadline = ContinuousClock.now + .seconds(10)
        var served = false
        while !served && ContinuousClock.now < deadline {
            let client = try await RawClient.connect(port: larder.port)
            try await client.send(health)
            served = (try? await client.readResponse(timeout: .seconds(2)))?.status == 200
            if !served { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(served, "no client was served after a connection closed")
        withExtendedLifetime(second) {}
    }
}
