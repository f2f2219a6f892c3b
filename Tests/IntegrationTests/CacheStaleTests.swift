import Synchronization
import Testing

/// Serving stale responses only where allowed: `stale-if-error` and `stale-while-revalidate` (RFC 5861), never
/// past `must-revalidate` (RFC 9111 §4.2.4, §5.2.2.2).
@Suite("Cache stale responses")
struct CacheStaleTests {
    /// What a scripted origin does with its next requests.
    enum Mode: Int {
        case healthy, failing
    }

    @Test(
        "stale-if-error: an origin answering 5xx after expiry gets the stored body served STALE",
        arguments: [500, 502, 503, 504])
    func staleIfErrorOnStatus(status: Int) async throws {
        let mode = Atomic(Mode.healthy.rawValue)
        let origin = try OriginServer { request in
            if mode.load(ordering: .relaxed) == Mode.failing.rawValue {
                return OriginResponse(status: status, body: .bytes(Array("origin broken".utf8)))
            }
            return .ok(
                "good \(request.sequence)", cacheControl: "max-age=1, stale-if-error=60", [OriginResponse.dateHeader()])
        }
        let larder = try await Daemon.start()
        let url = origin.url("/sie")
        #expect(try await Curl.get(url, via: larder).bodyText == "good 1")
        try await CachePoll.untilStale(url, in: larder)
        mode.store(Mode.failing.rawValue, ordering: .relaxed)

        let stale = try await Curl.get(url, via: larder)
        #expect(stale.status == 200)
        #expect(stale.xCache == "STALE")
        #expect(stale.bodyText == "good 1")
        #expect(stale.originSequence == 1)
        #expect(try #require(stale.age) >= 1)
        let field = try #require(stale.cacheStatus)
        #expect(field.has("hit"))
        #expect(field["fwd"] == "stale")
        #expect(field["fwd-status"] == "\(status)")
        #expect((field.ttl ?? 0) <= 0)
        #expect(origin.requests.count == 2)
    }

    @Test("stale-if-error: an origin that cannot be reached gets the stored body served STALE")
    func staleIfErrorOnUnreachable() async throws {
        let origin = try OriginServer { request in
            .ok("good \(request.sequence)", cacheControl: "max-age=1, stale-if-error=60", [OriginResponse.dateHeader()])
        }
        let larder = try await Daemon.start()
        let url = origin.url("/sie-down")
        #expect(try await Curl.get(url, via: larder).bodyText == "good 1")
        try await CachePoll.untilStale(url, in: larder)
        origin.stop()

        let stale = try await Curl.get(url, via: larder)
        #expect(stale.status == 200)
        #expect(stale.xCache == "STALE")
        #expect(stale.bodyText == "good 1")
        #expect(stale.cacheStatus?["detail"] == "connection_refused")
    }

    @Test("without stale-if-error an origin's 503 after expiry is passed through, not hidden")
    func noStaleIfError() async throws {
        let mode = Atomic(Mode.healthy.rawValue)
        let origin = try OriginServer { request in
            if mode.load(ordering: .relaxed) == Mode.failing.rawValue {
                return OriginResponse(status: 503, body: .bytes(Array("origin broken".utf8)))
            }
            return .ok("good", cacheControl: "max-age=1", [OriginResponse.dateHeader()])
        }
        let larder = try await Daemon.start()
        let url = origin.url("/no-sie")
        #expect(try await Curl.get(url, via: larder).bodyText == "good")
        try await CachePoll.untilStale(url, in: larder)
        mode.store(Mode.failing.rawValue, ordering: .relaxed)
        let failed = try await Curl.get(url, via: larder)
        #expect(failed.status == 503)
        #expect(failed.bodyText == "origin broken")
        #expect(failed.xCache == "EXPIRED")
    }

    @Test(
        "must-revalidate: a stale entry is never served; the origin's error is passed through",
        arguments: [502, 504]
    )
    func mustRevalidatePassesErrors(status: Int) async throws {
        let mode = Atomic(Mode.healthy.rawValue)
        let origin = try OriginServer { request in
            if mode.load(ordering: .relaxed) == Mode.failing.rawValue {
                return OriginResponse(status: status, body: .bytes(Array("origin says \(status)".utf8)))
            }
            return .ok(
                "good", cacheControl: "max-age=1, must-revalidate, stale-if-error=60, stale-while-revalidate=60",
                [OriginResponse.dateHeader()])
        }
        let larder = try await Daemon.start()
        let url = origin.url("/must")
        #expect(try await Curl.get(url, via: larder).bodyText == "good")
        try await CachePoll.untilStale(url, in: larder)
        mode.store(Mode.failing.rawValue, ordering: .relaxed)

        let failed = try await Curl.get(url, via: larder)
        #expect(failed.status == status)
        #expect(failed.bodyText == "origin says \(status)")
        #expect(failed.xCache == "EXPIRED")
        #expect(failed.cacheStatus?["fwd-status"] == "\(status)")
        // Not even a client's max-stale gets it (RFC 9111 §5.2.2.2).
        let insisting = try await Curl.get(url, via: larder, headers: ["Cache-Control: max-stale=600"])
        #expect(insisting.status == status)
        #expect(origin.requests.count == 3)
    }

    @Test("must-revalidate: an unreachable origin is a 502 from Larder, not the stale entry")
    func mustRevalidateUnreachable() async throws {
        let origin = try OriginServer { _ in
            .ok("good", cacheControl: "max-age=1, must-revalidate, stale-if-error=60", [OriginResponse.dateHeader()])
        }
        let larder = try await Daemon.start()
        let url = origin.url("/must-down")
        #expect(try await Curl.get(url, via: larder).bodyText == "good")
        try await CachePoll.untilStale(url, in: larder)
        origin.stop()
        let failed = try await Curl.get(url, via: larder)
        #expect(failed.status == 502)
        #expect(failed.bodyText != "good")
        #expect(failed.header("Proxy-Status")?.contains("connection_refused") == true)
    }

    @Test("stale-while-revalidate: served STALE at once, one background refresh, then a HIT with the new body")
    func staleWhileRevalidate() async throws {
        // The refresh's answer is held back until the test has made its stale requests, so they are answered
        // while the origin has not answered yet, however slowly this machine runs them.
        let answerRefresh = Latch()
        defer { answerRefresh.fire() }
        let origin = try OriginServer { request in
            if request.sequence == 1 {
                return .ok("old", cacheControl: "max-age=1, stale-while-revalidate=30", [OriginResponse.dateHeader()])
            }
            answerRefresh.wait(timeout: .seconds(30))
            return .ok("new \(request.sequence)", cacheControl: "max-age=60", [OriginResponse.dateHeader()])
        }
        let larder = try await Daemon.start()
        let url = origin.url("/swr")
        #expect(try await Curl.get(url, via: larder).bodyText == "old")
        try await CachePoll.untilStale(url, in: larder)

        for _ in 0..<5 {
            let stale = try await Curl.get(url, via: larder)
            #expect(stale.xCache == "STALE")
            #expect(stale.bodyText == "old")
            #expect(stale.originSequence == 1)
            #expect(stale.cacheStatus?["fwd"] == "stale")
            #expect(stale.cacheStatus?.has("hit") == true)
        }
        try await Poll.until("the origin to see the background refresh") { origin.requests.count == 2 }
        answerRefresh.fire()

        let hit = try await CachePoll.value("the refreshed response to be served") { () -> CurlResult? in
            let result = try await Curl.get(url, via: larder)
            return result.bodyText == "old" ? nil : result
        }
        #expect(hit.xCache == "HIT")
        #expect(hit.bodyText == "new 2")
        #expect(hit.originSequence == 2)
        #expect(origin.requests.count == 2)
        #expect(origin.requests.last?.method == "GET")
    }

    @Test("stale-while-revalidate: requests arriving back to back while the refresh lands cause no second refresh")
    func oneRefreshUnderLoad() async throws {
        let origin = try OriginServer { request in
            if request.sequence == 1 {
                return .ok("old", cacheControl: "max-age=1, stale-while-revalidate=30", [OriginResponse.dateHeader()])
            }
            var response = OriginResponse.ok(
                "new \(request.sequence)", cacheControl: "max-age=60", [OriginResponse.dateHeader()])
            response.delay = .milliseconds(200)
            return response
        }
        let larder = try await Daemon.start()
        let url = origin.url("/swr-load")
        #expect(try await Curl.get(url, via: larder).bodyText == "old")
        try await CachePoll.untilStale(url, in: larder)

        // One kept-alive connection asks again the moment each answer arrives, until the new body shows.
        let client = try await RawClient.connect(port: larder.port)
        var stale = 0
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            try await client.send("GET \(url) HTTP/1.1\r\nHost: 127.0.0.1:\(origin.port)\r\n\r\n")
            let response = try await client.readResponse()
            if response.bodyText == "old" {
                #expect(response.xCache == "STALE")
                stale += 1
                continue
            }
            #expect(response.bodyText == "new 2")
            #expect(response.xCache == "HIT")
            break
        }
        #expect(stale >= 1)
        #expect(origin.requests.count == 2, "\(larder.log)")
    }
}
