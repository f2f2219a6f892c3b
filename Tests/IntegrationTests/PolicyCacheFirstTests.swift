import Testing

/// `cache-first`: a stored response younger than the route's `ttl` is served whatever the origin's headers said;
/// past it, the origin is asked again, and `staleIfError` lets the stored response stand in for a failing origin.
@Suite("Policy: cache-first")
struct PolicyCacheFirstTests {
    @Test(
        "a response is stored for the route's ttl and served as a HIT, whatever the origin's Cache-Control said",
        arguments: ["no-cache", "max-age=0", "max-age=0, must-revalidate", "s-maxage=0, proxy-revalidate", nil]
    )
    func hitWithinTTL(cacheControl: String?) async throws {
        let origin = try PolicyOrigin { request in
            .ok("body \(request.sequence)", cacheControl.map { [("Cache-Control", $0)] } ?? [])
        }
        let larder = try await Daemon.start(config: PolicyConfig.everything(#""policy": "cache-first", "ttl": "60s""#))
        let url = origin.url("/cf")

        let miss = try await Curl.get(url, via: larder)
        #expect(miss.xCache == "MISS")
        #expect(miss.bodyText == "body 1")
        let stored = try #require(miss.cacheStatus)
        #expect(stored.has("stored"))
        #expect(stored["fwd"] == "uri-miss")
        // A MISS carries no Age; the fetch itself counts towards the age, and may be slow on a loaded machine.
        #expect((50...60).contains(stored.ttl ?? -1))

        let hit = try await Curl.get(url, via: larder)
        #expect(hit.xCache == "HIT")
        #expect(hit.bodyText == "body 1")
        #expect(hit.originSequence == 1)
        #expect(hit.header("Cache-Control") == cacheControl)
        #expect(hit.cacheStatus?.ttl == 60 - (hit.age ?? -1))
        #expect(origin.requests.count == 1)
        let line = try await Poll.value("the HIT's access line") { larder.accessLines.last { $0["cache"] == "HIT" } }
        #expect(line["route"] == "r")
    }

    @Test("concurrent misses for one URL are one fetch; every client gets its body")
    func coalescedMisses() async throws {
        let release = Latch()
        defer { release.fire() }
        let origin = try PolicyOrigin { request in
            release.wait(timeout: .seconds(60))
            return .ok("body \(request.sequence)")
        }
        let larder = try await Daemon.start(config: PolicyConfig.everything(#""policy": "cache-first", "ttl": "1h""#))
        let url = origin.url("/cf-together")
        async let answers = withThrowingTaskGroup(of: CurlResult.self) { group in
            for _ in 0..<6 { group.addTask { try await Curl.get(url, via: larder) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        try await Poll.until("the first request to reach the origin", timeout: .seconds(30)) {
            origin.requests.count == 1
        }
        release.fire()
        #expect(try await answers.map(\.bodyText) == Array(repeating: "body 1", count: 6))
        #expect(origin.requests.count == 1)
    }

    @Test("past ttl the origin is asked again with the stored validator; a 304 refreshes the entry (REVALIDATED)")
    func expiredRevalidated() async throws {
        let origin = try PolicyOrigin { request in
            if request.header("If-None-Match") == "\"v1\"" { return OriginResponse(status: 304, headers: [("ETag", "\"v1\"")]) }
            return .ok("body \(request.sequence)", cacheControl: "no-cache", [("ETag", "\"v1\"")])
        }
        let larder = try await Daemon.start(config: PolicyConfig.everything(#""policy": "cache-first", "ttl": "3s""#))
        let url = origin.url("/cf-304")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")
        try await Self.untilExpired(url, in: larder)

        let revalidated = try await Curl.get(url, via: larder)
        #expect(revalidated.xCache == "REVALIDATED")
        #expect(revalidated.bodyText == "body 1")
        #expect(revalidated.cacheStatus?["fwd-status"] == "304")
        #expect(origin.requests.count == 2)
        #expect(origin.requests.last?.header("If-None-Match") == "\"v1\"")
        // The 304 made the entry young again: its ttl counts from the validation.
        #expect(revalidated.cacheStatus?.ttl == 3 - (revalidated.age ?? -1))
        try await Self.expectHit(url, body: "body 1", ttl: 3, in: larder)
        #expect(origin.requests.count == 2)
    }

    @Test("past ttl a new answer from the origin replaces the entry (EXPIRED), and is then a HIT")
    func expiredRefetched() async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)", cacheControl: "max-age=0") }
        let larder = try await Daemon.start(config: PolicyConfig.everything(#""policy": "cache-first", "ttl": "3s""#))
        let url = origin.url("/cf-new")
        #expect(try await Curl.get(url, via: larder).bodyText == "body 1")
        try await Self.untilExpired(url, in: larder)

        let expired = try await Curl.get(url, via: larder)
        #expect(expired.xCache == "EXPIRED")
        #expect(expired.bodyText == "body 2")
        #expect(expired.cacheStatus?["fwd"] == "stale")
        #expect(expired.cacheStatus?.has("stored") == true)
        try await Self.expectHit(url, body: "body 2", ttl: 3, in: larder)
        #expect(origin.requests.count == 2)
    }

    @Test("origin down past ttl: within staleIfError the stored response is served STALE")
    func downStale() async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)", cacheControl: "max-age=0") }
        let larder = try await Daemon.start(
            config: PolicyConfig.everything(#""policy": "cache-first", "ttl": "1s", "staleIfError": "1h""#))
        let url = origin.url("/cf-down")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")
        try await Self.untilExpired(url, in: larder)
        try origin.goDown()

        let stale = try await Curl.get(url, via: larder)
        #expect(stale.status == 200)
        #expect(stale.xCache == "STALE")
        #expect(stale.bodyText == "body 1")
        #expect(stale.originSequence == 1)
        let field = try #require(stale.cacheStatus)
        #expect(field.has("hit"))
        #expect(field["fwd"] == "stale")
        #expect(field["detail"] == "connection_refused")
        #expect(try #require(field.ttl) <= 0)
        #expect(field.ttl == 1 - (stale.age ?? 0))
    }

    @Test("origin down past ttl without staleIfError: 502 naming the refused connection, not the stored body")
    func downWithoutStaleIfError() async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)") }
        let larder = try await Daemon.start(config: PolicyConfig.everything(#""policy": "cache-first", "ttl": "1s""#))
        let url = origin.url("/cf-down-502")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")
        try await Self.untilExpired(url, in: larder)
        try origin.goDown()

        let failed = try await Curl.get(url, via: larder)
        #expect(failed.status == 502)
        #expect(failed.bodyText != "body 1")
        #expect(failed.header("Proxy-Status")?.contains("connection_refused") == true)
    }

    @Test("origin 5xx past ttl: STALE within staleIfError; without it the origin's answer is passed through")
    func serverErrorStale() async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)") }
        let larder = try await Daemon.start(
            config: PolicyConfig.routes([
                #"{"name": "lenient", "match": {"path": "/lenient"}, "policy": "cache-first", "ttl": "1s", "staleIfError": "1h", "errorBackoff": "0s"}"#,
                #"{"name": "strict", "match": {"path": "/strict"}, "policy": "cache-first", "ttl": "1s", "errorBackoff": "0s"}"#,
            ]))
        let (lenient, strict) = (origin.url("/lenient"), origin.url("/strict"))
        #expect(try await Curl.get(lenient, via: larder).xCache == "MISS")
        #expect(try await Curl.get(strict, via: larder).xCache == "MISS")
        try await Self.untilExpired(lenient, in: larder)
        try await Self.untilExpired(strict, in: larder)
        origin.set(.failing(status: 503))

        let stale = try await Curl.get(lenient, via: larder)
        #expect(stale.status == 200)
        #expect(stale.xCache == "STALE")
        #expect(stale.bodyText == "body 1")
        #expect(stale.cacheStatus?["fwd-status"] == "503")
        #expect(stale.cacheStatus?["detail"] == "status-503")
        let passed = try await Curl.get(strict, via: larder)
        #expect(passed.status == 503)
        #expect(passed.bodyText == "origin failing with 503")
        #expect(passed.xCache == "EXPIRED")
        #expect(origin.requests(to: "/lenient").count == 2)
        #expect(origin.requests(to: "/strict").count == 2)
        // The failure was not stored: once the origin recovers, its answer is.
        origin.set(.healthy)
        let recovered = try await Curl.get(strict, via: larder)
        #expect(recovered.bodyText == "body 5")
        #expect(recovered.cacheStatus?.has("stored") == true)
    }

    @Test("a stand-in whose stored body turns out damaged is dropped: the origin is asked again and its 5xx passed on")
    func damagedStandIn() async throws {
        let size = 3_000_000
        let origin = try PolicyOrigin { _ in OriginResponse(body: .generated(count: size)) }
        let larder = try await Daemon.start(
            config: PolicyConfig.everything(
                #""policy": "cache-first", "ttl": "1s", "staleIfError": "1h", "errorBackoff": "0s""#))
        let url = origin.url("/cf-damaged")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")
        // Waited for without serving the body, which would have the store check it and drop it before the test asks.
        try await PolicyStoredEntry.waitUntil(url, in: larder, isAtLeast: 1)
        let files = try CacheDurabilityTests.bodyFiles(under: larder.cacheHome)
        try #require(files.count == 1, "body files: \(files)")
        try CacheDurabilityTests.flipBytes(in: files[0], at: [size / 2])
        origin.set(.failing(status: 503))

        let failed = try await Curl.get(url, via: larder, timeout: .seconds(15))
        #expect(failed.status == 503, "\(failed.stderr)")
        #expect(failed.bodyText == "origin failing with 503")
        #expect(origin.requests.count == 3)
    }

    @Test(
        "a client's no-cache within ttl makes Larder ask the origin, and the answer replaces the entry",
        arguments: ["Cache-Control: no-cache", "Pragma: no-cache", "Cache-Control: max-age=0, no-cache"]
    )
    func clientNoCache(header: String) async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)") }
        let larder = try await Daemon.start(config: PolicyConfig.everything(#""policy": "cache-first", "ttl": "60s""#))
        let url = origin.url("/cf-refresh")
        #expect(try await Curl.get(url, via: larder).bodyText == "body 1")

        let refreshed = try await Curl.get(url, via: larder, headers: [header])
        #expect(refreshed.xCache != "HIT")
        #expect(refreshed.bodyText == "body 2")
        #expect(refreshed.originSequence == 2)
        #expect(refreshed.cacheStatus?["fwd"] == "request")
        let hit = try await Curl.get(url, via: larder)
        #expect(hit.xCache == "HIT")
        #expect(hit.bodyText == "body 2")
        #expect(origin.requests.count == 2)
    }

    @Test("a client's no-cache with the origin down is answered STALE within staleIfError")
    func clientNoCacheOriginDown() async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)") }
        let larder = try await Daemon.start(
            config: PolicyConfig.everything(#""policy": "cache-first", "ttl": "60s", "staleIfError": "1h""#))
        let url = origin.url("/cf-refresh-down")
        #expect(try await Curl.get(url, via: larder).bodyText == "body 1")
        try origin.goDown()
        let stale = try await Curl.get(url, via: larder, headers: ["Cache-Control: no-cache"])
        #expect(stale.status == 200)
        #expect(stale.xCache == "STALE")
        #expect(stale.bodyText == "body 1")
    }

    @Test(
        "clientRefresh ignore: a client's no-cache within ttl is a HIT and never reaches the origin",
        arguments: ["Cache-Control: no-cache", "Pragma: no-cache"]
    )
    func clientRefreshIgnored(header: String) async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)") }
        let larder = try await Daemon.start(
            config: PolicyConfig.everything(#""policy": "cache-first", "ttl": "60s", "clientRefresh": "ignore""#))
        let url = origin.url("/cf-ignore")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")
        let hit = try await Curl.get(url, via: larder, headers: [header])
        #expect(hit.xCache == "HIT")
        #expect(hit.bodyText == "body 1")
        #expect(origin.requests.count == 1)
    }

    @Test(
        "what no policy stores stays unstored on cache-first: no-store, private, Set-Cookie, Vary: *, a request's no-store",
        arguments: [
            ([("Cache-Control", "no-store")], [], "no-store"),
            ([("Cache-Control", "private, max-age=600")], [], "private"),
            ([("Set-Cookie", "session=1")], [], "set-cookie"),
            ([("Vary", "*")], [], "vary-star"),
            ([], ["Cache-Control: no-store"], "request-no-store"),
        ] as [([(String, String)], [String], String)]
    )
    func neverStored(responseHeaders: [(String, String)], requestHeaders: [String], detail: String) async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)", responseHeaders) }
        let larder = try await Daemon.start(config: PolicyConfig.everything(#""policy": "cache-first", "ttl": "1h""#))
        let url = origin.url("/cf-never")
        let first = try await Curl.get(url, via: larder, headers: requestHeaders)
        #expect(first.cacheStatus?["detail"] == detail)
        #expect(first.cacheStatus?.has("stored") == false)
        let second = try await Curl.get(url, via: larder)
        #expect(second.xCache == "MISS")
        #expect(second.bodyText == "body 2")
    }

    @Test("storeSetCookie: a response that sets a cookie is stored, and its Set-Cookie served with every HIT")
    func storeSetCookie() async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)", [("Set-Cookie", "region=eu")]) }
        let larder = try await Daemon.start(
            config: PolicyConfig.everything(#""policy": "cache-first", "ttl": "1h", "storeSetCookie": true"#))
        let url = origin.url("/cf-cookie")
        #expect(try await Curl.get(url, via: larder).cacheStatus?.has("stored") == true)
        let hit = try await Curl.get(url, via: larder)
        #expect(hit.xCache == "HIT")
        #expect(hit.header("Set-Cookie") == "region=eu")
        #expect(origin.requests.count == 1)
    }

    @Test("the client's max-age, min-fresh and max-stale do not change a cache-first answer: a HIT")
    func otherClientDirectives() async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)") }
        let larder = try await Daemon.start(config: PolicyConfig.everything(#""policy": "cache-first", "ttl": "1h""#))
        let url = origin.url("/cf-directives")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")
        for directive in ["max-age=0", "min-fresh=7200", "max-stale=0"] {
            let hit = try await Curl.get(url, via: larder, headers: ["Cache-Control: \(directive)"])
            #expect(hit.xCache == "HIT", "\(directive)")
        }
        #expect(origin.requests.count == 1)
    }

    /// Expects `url`'s entry, just refreshed, to answer without the origin as a HIT with `body` and a ttl that is the
    /// route's `ttl` minus its Age. Asked with `only-if-cached`, so that on a machine so loaded that the whole ttl
    /// passed meanwhile the answer is a 504 rather than a trip to the origin the test would count.
    static func expectHit(
        _ url: String, body: String, ttl: Int, in larder: Daemon, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let hit = try await Curl.get(url, via: larder, headers: ["Cache-Control: only-if-cached"])
        guard hit.status != 504 else { return }
        #expect(hit.xCache == "HIT", sourceLocation: sourceLocation)
        #expect(hit.bodyText == body, sourceLocation: sourceLocation)
        #expect(hit.cacheStatus?.ttl == ttl - (hit.age ?? -1), sourceLocation: sourceLocation)
    }

    /// Waits until `url`'s entry is past the route's ttl, without reaching the origin: `only-if-cached` is served
    /// while the entry is young and answered 504 once Larder would have to ask the origin.
    static func untilExpired(_ url: String, in larder: Daemon) async throws {
        try await CachePoll.until("\(url) to be past its route's ttl") {
            try await Curl.get(url, via: larder, headers: ["Cache-Control: only-if-cached"]).status == 504
        }
    }
}
