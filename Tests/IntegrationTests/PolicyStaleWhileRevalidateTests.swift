import Testing

/// `stale-while-revalidate`: a stored response is a HIT under `ttl`; until `ttl` + `maxStale` it is served STALE at
/// once while one background refresh per key replaces it; beyond that it is fetched.
@Suite("Policy: stale-while-revalidate")
struct PolicyStaleWhileRevalidateTests {
    @Test("within ttl a HIT, whatever the origin's headers said")
    func hitWithinTTL() async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)", cacheControl: "no-cache") }
        let larder = try await Daemon.start(
            config: PolicyConfig.everything(#""policy": "stale-while-revalidate", "ttl": "60s", "maxStale": "60s""#))
        let url = origin.url("/swr-hit")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")
        let hit = try await Curl.get(url, via: larder)
        #expect(hit.xCache == "HIT")
        #expect(hit.bodyText == "body 1")
        #expect(hit.cacheStatus?.ttl == 60 - (hit.age ?? -1))
        #expect(origin.requests.count == 1)
    }

    // ttl is 3 s so that the refreshed response, whose age counts the time its answer was held, is still young when
    // it is first served.
    @Test("past ttl: STALE at once to every concurrent request, exactly one background refresh, then a HIT with the new body")
    func staleThenOneRefresh() async throws {
        // The refresh's answer is held back until the stale requests are answered, however slow the machine.
        let answerRefresh = Latch()
        defer { answerRefresh.fire() }
        let origin = try PolicyOrigin { request in
            if request.sequence > 1 { answerRefresh.wait(timeout: .seconds(30)) }
            return .ok("body \(request.sequence)", [("ETag", "\"e\(request.sequence)\"")])
        }
        let larder = try await Daemon.start(
            config: PolicyConfig.everything(#""policy": "stale-while-revalidate", "ttl": "3s", "maxStale": "1h""#))
        let url = origin.url("/swr")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")
        try await PolicyStoredEntry.waitUntil(url, in: larder, isAtLeast: 3)

        let answers = try await withThrowingTaskGroup(of: CurlResult.self) { group in
            for _ in 0..<8 { group.addTask { try await Curl.get(url, via: larder) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for stale in answers {
            #expect(stale.xCache == "STALE")
            #expect(stale.bodyText == "body 1")
            #expect(stale.originSequence == 1)
            #expect(stale.cacheStatus?["fwd"] == "stale")
            #expect(try #require(stale.cacheStatus?.ttl) <= 0)
        }
        try await Poll.until("the origin to see the background refresh") { origin.requests.count == 2 }
        #expect(origin.requests.last?.header("If-None-Match") == "\"e1\"")
        // All eight answered, the refresh still held: one refresh, however many requests.
        #expect(origin.requests.count == 2)
        answerRefresh.fire()

        let new = try await CachePoll.value("the refreshed response to be served") { () -> CurlResult? in
            let result = try await Curl.get(url, via: larder)
            return result.bodyText == "body 1" ? nil : result
        }
        #expect(new.bodyText == "body 2")
        // Its age counts the time its answer was held (RFC 9111 §4.2.3): on a machine slow enough to hold it past
        // the ttl it is stale at once, and refreshed again.
        let age = try #require(new.age)
        #expect(new.xCache == (age < 3 ? "HIT" : "STALE"))
        #expect(new.cacheStatus?.ttl == 3 - age)
        if age < 3 { #expect(origin.requests.count == 2) }
    }

    @Test("past ttl and maxStale the stored response is fetched again (EXPIRED), not served stale")
    func beyondMaxStale() async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)") }
        let larder = try await Daemon.start(
            config: PolicyConfig.everything(#""policy": "stale-while-revalidate", "ttl": "1s", "maxStale": "1s""#))
        let url = origin.url("/swr-old")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")
        try await PolicyStoredEntry.waitUntil(url, in: larder, isAtLeast: 3)

        let expired = try await Curl.get(url, via: larder)
        #expect(expired.xCache == "EXPIRED")
        #expect(expired.bodyText == "body 2")
        #expect(origin.requests.count == 2)
    }

    @Test("origin down past ttl and maxStale: STALE within staleIfError, else 502")
    func downBeyondMaxStale() async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)") }
        let larder = try await Daemon.start(
            config: PolicyConfig.routes([
                #"{"name": "lenient", "match": {"path": "/lenient"}, "policy": "stale-while-revalidate", "ttl": "1s", "maxStale": "1s", "staleIfError": "1h"}"#,
                #"{"name": "strict", "match": {"path": "/strict"}, "policy": "stale-while-revalidate", "ttl": "1s", "maxStale": "1s"}"#,
            ]))
        let (lenient, strict) = (origin.url("/lenient"), origin.url("/strict"))
        #expect(try await Curl.get(lenient, via: larder).xCache == "MISS")
        #expect(try await Curl.get(strict, via: larder).xCache == "MISS")
        try origin.goDown()
        try await PolicyStoredEntry.waitUntil(lenient, in: larder, isAtLeast: 3)
        try await PolicyStoredEntry.waitUntil(strict, in: larder, isAtLeast: 3)

        let stale = try await Curl.get(lenient, via: larder)
        #expect(stale.status == 200)
        #expect(stale.xCache == "STALE")
        #expect(stale.bodyText == "body 1")
        #expect(stale.cacheStatus?["detail"] == "connection_refused")
        let failed = try await Curl.get(strict, via: larder)
        #expect(failed.status == 502)
    }

    @Test("origin 5xx past ttl and maxStale: STALE within staleIfError, else the 5xx passes")
    func serverErrorBeyondMaxStale() async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)") }
        let larder = try await Daemon.start(
            config: PolicyConfig.routes([
                #"{"name": "lenient", "match": {"path": "/lenient"}, "policy": "stale-while-revalidate", "ttl": "1s", "maxStale": "1s", "staleIfError": "1h", "errorBackoff": "0s"}"#,
                #"{"name": "strict", "match": {"path": "/strict"}, "policy": "stale-while-revalidate", "ttl": "1s", "maxStale": "1s", "errorBackoff": "0s"}"#,
            ]))
        let (lenient, strict) = (origin.url("/lenient"), origin.url("/strict"))
        #expect(try await Curl.get(lenient, via: larder).xCache == "MISS")
        #expect(try await Curl.get(strict, via: larder).xCache == "MISS")
        origin.set(.failing(status: 502))
        try await PolicyStoredEntry.waitUntil(lenient, in: larder, isAtLeast: 3)
        try await PolicyStoredEntry.waitUntil(strict, in: larder, isAtLeast: 3)

        let stale = try await Curl.get(lenient, via: larder)
        #expect(stale.xCache == "STALE")
        #expect(stale.bodyText == "body 1")
        #expect(stale.cacheStatus?["fwd-status"] == "502")
        let failed = try await Curl.get(strict, via: larder)
        #expect(failed.status == 502)
        #expect(failed.bodyText == "origin failing with 502")
        #expect(origin.requests.count == 4)
    }

    @Test("a failed background refresh keeps the stored response: still STALE, and refreshed again later")
    func failedRefreshKeepsEntry() async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)") }
        let larder = try await Daemon.start(
            config: PolicyConfig.everything(
                #""policy": "stale-while-revalidate", "ttl": "3s", "maxStale": "1h", "errorBackoff": "0s""#))
        let url = origin.url("/swr-fail")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")
        try await PolicyStoredEntry.waitUntil(url, in: larder, isAtLeast: 3)
        origin.set(.failing(status: 503))

        #expect(try await Curl.get(url, via: larder).xCache == "STALE")
        try await Poll.until("the failing refresh") { origin.requests.count == 2 }
        // The refresh's 503 was not stored: the next request is STALE again and starts another refresh.
        let again = try await CachePoll.value("a second refresh") { () -> CurlResult? in
            let result = try await Curl.get(url, via: larder)
            return origin.requests.count >= 3 ? result : nil
        }
        #expect(again.xCache == "STALE")
        #expect(again.bodyText == "body 1")
        origin.set(.healthy)
        let new = try await CachePoll.value("a refresh to land") { () -> CurlResult? in
            let result = try await Curl.get(url, via: larder)
            return result.bodyText == "body 1" ? nil : result
        }
        #expect(new.xCache == (try #require(new.age) < 3 ? "HIT" : "STALE"))
    }

    @Test("a body-keyed POST is refreshed in the background with its own body, and a HEAD with the GET")
    func refreshCarriesRequest() async throws {
        let origin = try PolicyOrigin { request in .ok("\(request.sequence) \(request.method) \(request.bodyText)") }
        let larder = try await Daemon.start(
            config: PolicyConfig.routes([
                #"{"name": "rpc", "match": {"path": "/rpc", "methods": ["POST"]}, "policy": "stale-while-revalidate", "ttl": "1s", "maxStale": "1h", "key": {"body": true}}"#,
                #"{"name": "pages", "match": {"path": "/"}, "policy": "stale-while-revalidate", "ttl": "1s", "maxStale": "1h"}"#,
            ]))
        let (rpc, page) = (origin.url("/rpc"), origin.url("/page"))
        #expect(try await Curl.run(["--data-binary", "q=1", rpc], via: larder).xCache == "MISS")
        #expect(try await Curl.get(page, via: larder).xCache == "MISS")
        try await PolicyStoredEntry.waitUntil(rpc, in: larder, isAtLeast: 1)
        try await PolicyStoredEntry.waitUntil(page, in: larder, isAtLeast: 1)

        let stalePost = try await Curl.run(["--data-binary", "q=1", rpc], via: larder)
        #expect(stalePost.xCache == "STALE")
        #expect(stalePost.bodyText == "1 POST q=1")
        let staleHead = try await Curl.run(["-I", page], via: larder)
        #expect(staleHead.xCache == "STALE")
        try await Poll.until("both refreshes") { origin.requests.count == 4 }
        let refreshes = origin.requests.dropFirst(2)
        #expect(refreshes.contains { $0.method == "POST" && $0.path == "/rpc" && $0.bodyText == "q=1" })
        #expect(refreshes.contains { $0.method == "GET" && $0.path == "/page" && $0.body.isEmpty })
    }

    @Test("a client's no-cache within ttl is fetched from the origin and stored")
    func clientNoCache() async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)") }
        let larder = try await Daemon.start(
            config: PolicyConfig.everything(#""policy": "stale-while-revalidate", "ttl": "60s", "maxStale": "60s""#))
        let url = origin.url("/swr-refresh")
        #expect(try await Curl.get(url, via: larder).bodyText == "body 1")
        let refreshed = try await Curl.get(url, via: larder, headers: ["Cache-Control: no-cache"])
        #expect(refreshed.bodyText == "body 2")
        #expect(refreshed.cacheStatus?["fwd"] == "request")
        let hit = try await Curl.get(url, via: larder)
        #expect(hit.xCache == "HIT")
        #expect(hit.bodyText == "body 2")
        #expect(origin.requests.count == 2)
    }
}
