import Testing

/// `standard` follows RFC 9111 (covered by the Cache suites); a route adds `staleIfError` for responses that do not
/// say `stale-if-error` themselves, never past what RFC 9111 §4.2.4 forbids, and may ignore the client's refresh.
@Suite("Policy: standard")
struct PolicyStandardTests {
    @Test("an origin answering 5xx after expiry gets the stored body served STALE within the route's staleIfError")
    func serverErrorStale() async throws {
        let origin = try PolicyOrigin { request in
            .ok("body \(request.sequence)", cacheControl: "max-age=1", [OriginResponse.dateHeader()])
        }
        let larder = try await Daemon.start(
            config: PolicyConfig.everything(#""policy": "standard", "staleIfError": "1h", "errorBackoff": "0s""#))
        let url = origin.url("/std")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")
        try await CachePoll.untilStale(url, in: larder)
        origin.set(.failing(status: 500))

        let stale = try await Curl.get(url, via: larder)
        #expect(stale.status == 200)
        #expect(stale.xCache == "STALE")
        #expect(stale.bodyText == "body 1")
        #expect(stale.cacheStatus?["fwd-status"] == "500")
        #expect(stale.cacheStatus?.ttl == 1 - (stale.age ?? 0))
        #expect(origin.requests.count == 2)
    }

    @Test("an unreachable origin after expiry gets the stored body served STALE within the route's staleIfError")
    func downStale() async throws {
        let origin = try PolicyOrigin { request in
            .ok("body \(request.sequence)", cacheControl: "max-age=1", [OriginResponse.dateHeader()])
        }
        let larder = try await Daemon.start(config: PolicyConfig.everything(#""policy": "standard", "staleIfError": "1h""#))
        let url = origin.url("/std-down")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")
        try await CachePoll.untilStale(url, in: larder)
        try origin.goDown()

        let stale = try await Curl.get(url, via: larder)
        #expect(stale.xCache == "STALE")
        #expect(stale.bodyText == "body 1")
        #expect(stale.cacheStatus?["detail"] == "connection_refused")
    }

    @Test(
        "the route's staleIfError never overrides what the response says: its own stale-if-error, or no stale use",
        arguments: [
            "max-age=1, stale-if-error=1", "max-age=1, must-revalidate", "max-age=1, proxy-revalidate",
            "s-maxage=1", "no-cache",
        ]
    )
    func responseDecides(cacheControl: String) async throws {
        let origin = try PolicyOrigin { request in
            .ok("body \(request.sequence)", cacheControl: cacheControl, [OriginResponse.dateHeader()])
        }
        let larder = try await Daemon.start(
            config: PolicyConfig.everything(#""policy": "standard", "staleIfError": "1h", "errorBackoff": "0s""#))
        let url = origin.url("/std-decides")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")
        // Past the response's own stale-if-error=1 as well.
        try await PolicyStoredEntry.waitUntil(url, in: larder, isAtLeast: 3)
        origin.set(.failing(status: 503))

        let failed = try await Curl.get(url, via: larder)
        #expect(failed.status == 503)
        #expect(failed.bodyText == "origin failing with 503")
        #expect(failed.xCache == "EXPIRED")
    }

    @Test("the route's staleIfError is counted past the origin's freshness: an older response does not stand in")
    func tooOld() async throws {
        let origin = try PolicyOrigin { request in
            .ok("body \(request.sequence)", cacheControl: "max-age=1", [OriginResponse.dateHeader()])
        }
        let larder = try await Daemon.start(
            config: PolicyConfig.everything(#""policy": "standard", "staleIfError": "1s", "errorBackoff": "0s""#))
        let url = origin.url("/std-old")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")
        try await PolicyStoredEntry.waitUntil(url, in: larder, isAtLeast: 3)
        origin.set(.failing(status: 502))

        let failed = try await Curl.get(url, via: larder)
        #expect(failed.status == 502)
        #expect(failed.bodyText == "origin failing with 502")
    }

    @Test("clientRefresh ignore on standard: a client's no-cache is answered from a fresh stored response")
    func clientRefreshIgnored() async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)", cacheControl: "max-age=600") }
        let larder = try await Daemon.start(
            config: PolicyConfig.everything(#""policy": "standard", "clientRefresh": "ignore""#))
        let url = origin.url("/std-ignore")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")
        for header in ["Cache-Control: no-cache", "Pragma: no-cache"] {
            let hit = try await Curl.get(url, via: larder, headers: [header])
            #expect(hit.xCache == "HIT", "\(header)")
        }
        #expect(origin.requests.count == 1)
    }
}
