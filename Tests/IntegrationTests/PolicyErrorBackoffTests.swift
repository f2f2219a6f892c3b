import Testing

/// `errorBackoff`: after an origin fails, for that long requests that `staleIfError` allows are answered stale at
/// once instead of asking the failing origin again; kept per origin.
@Suite("Policy: errorBackoff")
struct PolicyErrorBackoffTests {
    /// Routes that can stand in for a failing origin, with a back-off window far longer than the test.
    static let routes = [
        #""policy": "cache-first", "ttl": "1s", "staleIfError": "1h", "errorBackoff": "1h""#,
        #""policy": "network-first", "staleIfError": "1h", "errorBackoff": "1h""#,
        #""policy": "standard", "staleIfError": "1h", "errorBackoff": "1h""#,
    ]

    @Test("while the origin fails, stale answers are served without the origin seeing each request", arguments: routes)
    func staleWithoutAsking(route: String) async throws {
        let origin = try PolicyOrigin { request in
            .ok("body \(request.sequence)", cacheControl: "max-age=1", [OriginResponse.dateHeader()])
        }
        let larder = try await Daemon.start(config: PolicyConfig.everything(route))
        let url = origin.url("/backoff")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")
        try await PolicyStoredEntry.waitUntil(url, in: larder, isAtLeast: 2)
        origin.set(.failing(status: 503))

        let first = try await Curl.get(url, via: larder)
        #expect(first.xCache == "STALE")
        #expect(first.cacheStatus?["fwd-status"] == "503")
        #expect(origin.requests.count == 2)
        for _ in 0..<5 {
            let stale = try await Curl.get(url, via: larder)
            #expect(stale.status == 200)
            #expect(stale.xCache == "STALE")
            #expect(stale.bodyText == "body 1")
            #expect(stale.cacheStatus?["detail"] == "origin-backoff")
            #expect(stale.cacheStatus?["fwd-status"] == nil)
        }
        #expect(origin.requests.count == 2)
    }

    @Test("errorBackoff 0s: every request asks the failing origin")
    func off() async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)") }
        let larder = try await Daemon.start(
            config: PolicyConfig.everything(#""policy": "network-first", "staleIfError": "1h", "errorBackoff": "0s""#))
        let url = origin.url("/no-backoff")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")
        origin.set(.failing(status: 503))
        for _ in 0..<4 {
            let stale = try await Curl.get(url, via: larder)
            #expect(stale.xCache == "STALE")
            #expect(stale.cacheStatus?["fwd-status"] == "503")
        }
        #expect(origin.requests.count == 5)
    }

    @Test("during the back-off, requests staleIfError cannot answer still go to the origin")
    func onlyWhatStaleIfErrorAllows() async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)") }
        let larder = try await Daemon.start(
            config: PolicyConfig.routes([
                #"{"name": "strict", "match": {"path": "/strict"}, "policy": "network-first", "errorBackoff": "1h"}"#,
                #"{"name": "lenient", "match": {"path": "/"}, "policy": "network-first", "staleIfError": "1h", "errorBackoff": "1h"}"#,
            ]))
        #expect(try await Curl.get(origin.url("/stored"), via: larder).xCache == "MISS")
        #expect(try await Curl.get(origin.url("/strict"), via: larder).xCache == "MISS")
        origin.set(.failing(status: 503))
        #expect(try await Curl.get(origin.url("/stored"), via: larder).xCache == "STALE")
        #expect(origin.requests.count == 3)

        // Nothing stored: the origin is asked, and its answer passed on.
        let unstored = try await Curl.get(origin.url("/never-stored"), via: larder)
        #expect(unstored.status == 503)
        // Stored, but the route allows no stale answer.
        let strict = try await Curl.get(origin.url("/strict"), via: larder)
        #expect(strict.status == 503)
        #expect(origin.requests.count == 5)
        #expect(try await Curl.get(origin.url("/stored"), via: larder).cacheStatus?["detail"] == "origin-backoff")
        #expect(origin.requests.count == 5)
    }

    @Test("the back-off is kept per origin: another origin on the same route is still asked")
    func perOrigin() async throws {
        let failing = try PolicyOrigin { request in .ok("failing \(request.sequence)") }
        let healthy = try PolicyOrigin { request in .ok("healthy \(request.sequence)") }
        let larder = try await Daemon.start(
            config: PolicyConfig.everything(#""policy": "network-first", "staleIfError": "1h", "errorBackoff": "1h""#))
        #expect(try await Curl.get(failing.url("/a"), via: larder).xCache == "MISS")
        #expect(try await Curl.get(healthy.url("/a"), via: larder).xCache == "MISS")
        failing.set(.failing(status: 503))
        #expect(try await Curl.get(failing.url("/a"), via: larder).xCache == "STALE")
        #expect(try await Curl.get(failing.url("/a"), via: larder).cacheStatus?["detail"] == "origin-backoff")
        #expect(failing.requests.count == 2)

        let asked = try await Curl.get(healthy.url("/a"), via: larder)
        #expect(asked.bodyText == "healthy 2")
        #expect(healthy.requests.count == 2)
    }

    @Test("once the window has passed the origin is asked again, and its recovery ends the back-off")
    func windowEnds() async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)") }
        let larder = try await Daemon.start(
            config: PolicyConfig.everything(#""policy": "network-first", "staleIfError": "1h", "errorBackoff": "1s""#))
        let url = origin.url("/window")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")
        origin.set(.failing(status: 503))
        #expect(try await Curl.get(url, via: larder).xCache == "STALE")
        #expect(origin.requests.count == 2)
        origin.set(.healthy)

        // Answers inside the window are stale without asking; the first after it reaches the recovered origin.
        let recovered = try await CachePoll.value("a request to reach the origin again") { () -> CurlResult? in
            let result = try await Curl.get(url, via: larder)
            if result.bodyText == "body 1" {
                #expect(result.cacheStatus?["detail"] == "origin-backoff")
                return nil
            }
            return result
        }
        #expect(recovered.bodyText == "body 3")
        #expect(origin.requests.count == 3)
        // A success closes the window: every request reaches the origin again.
        #expect(try await Curl.get(url, via: larder).bodyText == "body 4")
    }
}
