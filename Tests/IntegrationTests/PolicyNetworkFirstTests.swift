import Testing

/// `network-first`: every request goes to the origin and good answers are stored; when the origin cannot be reached,
/// times out or answers 5xx, the stored response stands in if it is no older than `staleIfError`.
@Suite("Policy: network-first")
struct PolicyNetworkFirstTests {
    static let route = #""policy": "network-first", "staleIfError": "1h", "errorBackoff": "0s""#

    @Test("every request reaches the origin, even with a fresh stored response, and each good answer is stored")
    func alwaysFetched() async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)", cacheControl: "max-age=600") }
        let larder = try await Daemon.start(config: PolicyConfig.everything(Self.route))
        let url = origin.url("/nf")

        let miss = try await Curl.get(url, via: larder)
        #expect(miss.xCache == "MISS")
        #expect(miss.cacheStatus?.has("stored") == true)
        for sequence in 2...4 {
            let fetched = try await Curl.get(url, via: larder)
            #expect(fetched.xCache != "HIT")
            #expect(fetched.bodyText == "body \(sequence)")
            #expect(fetched.originSequence == sequence)
            #expect(fetched.cacheStatus?.has("stored") == true)
        }
        #expect(origin.requests.count == 4)
        // What was stored last is what stands in.
        try origin.goDown()
        let stale = try await Curl.get(url, via: larder)
        #expect(stale.xCache == "STALE")
        #expect(stale.bodyText == "body 4")
    }

    @Test("concurrent requests each go to the origin at once: none waits for another's fetch")
    func concurrentRequestsNotSerialized() async throws {
        // The origin answers nothing until it has seen all three requests: they must be under way together.
        let count = 3
        let allArrived = Latch()
        let origin = try PolicyOrigin { request in
            guard request.sequence > 1 else { return .ok("first") }
            if request.sequence == count + 1 { allArrived.fire() }
            // Shorter than cache.coalesceWait (10 s), so a request held back behind another is answered "alone".
            return .ok(allArrived.wait(timeout: .seconds(5)) ? "together" : "alone")
        }
        let larder = try await Daemon.start(config: PolicyConfig.everything(Self.route))
        let url = origin.url("/nf-concurrent")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")

        let answers = try await withThrowingTaskGroup(of: CurlResult.self) { group in
            for _ in 0..<count { group.addTask { try await Curl.get(url, via: larder) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.map(\.bodyText) == Array(repeating: "together", count: count))
        #expect(origin.requests.count == count + 1)
    }

    @Test("a client's no-cache is fetched like every request, and stored")
    func clientNoCache() async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)") }
        let larder = try await Daemon.start(config: PolicyConfig.everything(Self.route))
        let url = origin.url("/nf-refresh")
        #expect(try await Curl.get(url, via: larder).bodyText == "body 1")
        let refreshed = try await Curl.get(url, via: larder, headers: ["Cache-Control: no-cache"])
        #expect(refreshed.bodyText == "body 2")
        #expect(refreshed.cacheStatus?["fwd"] == "request")
        #expect(origin.requests.count == 2)
    }

    @Test("the origin validates the stored response when it has a validator; a 304 serves it (REVALIDATED)")
    func validated() async throws {
        let origin = try PolicyOrigin { request in
            if request.header("If-None-Match") == "\"n1\"" { return OriginResponse(status: 304, headers: [("ETag", "\"n1\"")]) }
            return .ok("body \(request.sequence)", [("ETag", "\"n1\"")])
        }
        let larder = try await Daemon.start(config: PolicyConfig.everything(Self.route))
        let url = origin.url("/nf-304")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")
        let revalidated = try await Curl.get(url, via: larder)
        #expect(revalidated.xCache == "REVALIDATED")
        #expect(revalidated.bodyText == "body 1")
        #expect(origin.requests.count == 2)
    }

    @Test("origin down: the stored response is served STALE within staleIfError")
    func downStale() async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)", cacheControl: "no-cache") }
        let larder = try await Daemon.start(config: PolicyConfig.everything(Self.route))
        let url = origin.url("/nf-down")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")
        try origin.goDown()

        let stale = try await Curl.get(url, via: larder)
        #expect(stale.status == 200)
        #expect(stale.xCache == "STALE")
        #expect(stale.bodyText == "body 1")
        #expect(stale.originSequence == 1)
        let field = try #require(stale.cacheStatus)
        #expect(field.has("hit"))
        #expect(field["detail"] == "connection_refused")
        // Its lifetime on this route is 0: ttl is minus its age.
        #expect(field.ttl == -(stale.age ?? -1))
    }

    @Test("origin down with nothing stored, or without staleIfError: 502 from Larder")
    func downWithoutStandIn() async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)") }
        let larder = try await Daemon.start(
            config: PolicyConfig.routes([
                #"{"name": "strict", "match": {"path": "/strict"}, "policy": "network-first"}"#,
                #"{"name": "lenient", "match": {"path": "/"}, \#(Self.route)}"#,
            ]))
        #expect(try await Curl.get(origin.url("/strict"), via: larder).xCache == "MISS")
        try origin.goDown()

        let strict = try await Curl.get(origin.url("/strict"), via: larder)
        #expect(strict.status == 502)
        #expect(strict.header("Proxy-Status")?.contains("connection_refused") == true)
        let never = try await Curl.get(origin.url("/never-stored"), via: larder)
        #expect(never.status == 502)
        #expect(never.xCache == "MISS")
    }

    @Test("origin 5xx: STALE within staleIfError, and the origin saw every request", arguments: [500, 502, 503, 504])
    func serverErrorStale(status: Int) async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)") }
        let larder = try await Daemon.start(config: PolicyConfig.everything(Self.route))
        let url = origin.url("/nf-5xx")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")
        origin.set(.failing(status: status))

        for _ in 0..<3 {
            let stale = try await Curl.get(url, via: larder)
            #expect(stale.status == 200)
            #expect(stale.xCache == "STALE")
            #expect(stale.bodyText == "body 1")
            #expect(stale.cacheStatus?["fwd-status"] == "\(status)")
        }
        #expect(origin.requests.count == 4)
    }

    @Test("origin 5xx without staleIfError: the origin's answer is passed through, and not stored")
    func serverErrorPassedThrough() async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)") }
        let larder = try await Daemon.start(config: PolicyConfig.everything(#""policy": "network-first""#))
        let url = origin.url("/nf-503")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")
        origin.set(.failing(status: 503))
        let failed = try await Curl.get(url, via: larder)
        #expect(failed.status == 503)
        #expect(failed.bodyText == "origin failing with 503")
        #expect(failed.cacheStatus?.has("stored") == false)
        origin.set(.healthy)
        #expect(try await Curl.get(url, via: larder).bodyText == "body 3")
    }

    @Test("an origin slower than the route's timeout: STALE within staleIfError, else 504")
    func timeout() async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)") }
        let larder = try await Daemon.start(
            config: PolicyConfig.routes([
                #"{"name": "strict", "match": {"path": "/strict"}, "policy": "network-first", "timeout": "2s"}"#,
                #"{"name": "lenient", "match": {"path": "/"}, \#(Self.route), "timeout": "2s"}"#,
            ]))
        let (lenient, strict) = (origin.url("/lenient"), origin.url("/strict"))
        #expect(try await Curl.get(lenient, via: larder).xCache == "MISS")
        #expect(try await Curl.get(strict, via: larder).xCache == "MISS")
        origin.set(.stalling)

        let stale = try await Curl.get(lenient, via: larder)
        #expect(stale.status == 200)
        #expect(stale.xCache == "STALE")
        #expect(stale.bodyText == "body 1")
        #expect(stale.cacheStatus?["detail"] == "http_response_timeout")
        let timedOut = try await Curl.get(strict, via: larder)
        #expect(timedOut.status == 504)
        #expect(timedOut.header("Proxy-Status")?.contains("http_response_timeout") == true)
    }

    @Test("staleIfError bounds the stored response's age: an older one does not stand in")
    func tooOldForStaleIfError() async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)") }
        let larder = try await Daemon.start(
            config: PolicyConfig.everything(#""policy": "network-first", "staleIfError": "1s", "errorBackoff": "0s""#))
        let url = origin.url("/nf-old")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")
        try origin.goDown()
        try await PolicyStoredEntry.waitUntil(url, in: larder, isAtLeast: 2)

        let failed = try await Curl.get(url, via: larder)
        #expect(failed.status == 502)
        #expect(failed.bodyText != "body 1")
    }
}
