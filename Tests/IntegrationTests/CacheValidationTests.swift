import Testing

/// Validation (RFC 9111 §4.3) and the client's request directives (RFC 9111 §5.2.1).
@Suite("Cache validation and request directives")
struct CacheValidationTests {
    /// An origin whose resource has `ETag: "v1"` and lives one second; it answers `If-None-Match: "v1"` with 304
    /// carrying `X-Refreshed: <seq>`.
    static func etagOrigin(body: String = "validated body") throws -> OriginServer {
        try OriginServer { request in
            if request.header("If-None-Match") == "\"v1\"" {
                return OriginResponse(
                    status: 304,
                    headers: [
                        ("Cache-Control", "max-age=1"), ("ETag", "\"v1\""), OriginResponse.dateHeader(),
                        ("X-Refreshed", "yes"),
                    ])
            }
            return .ok(body, cacheControl: "max-age=1", [("ETag", "\"v1\""), OriginResponse.dateHeader()])
        }
    }

    @Test("a stale entry is revalidated with If-None-Match; a 304 serves the stored body as REVALIDATED")
    func revalidationWith304() async throws {
        let origin = try Self.etagOrigin()
        let larder = try await Daemon.start()
        let url = origin.url("/etag")
        let miss = try await Curl.get(url, via: larder)
        #expect(miss.xCache == "MISS")
        try await CachePoll.untilStale(url, in: larder)

        let revalidated = try await Curl.get(url, via: larder)
        #expect(revalidated.status == 200)
        #expect(revalidated.xCache == "REVALIDATED")
        #expect(revalidated.bodyText == "validated body")
        #expect(revalidated.header("Content-Length") == "\(revalidated.body.count)")
        #expect(revalidated.header("ETag") == "\"v1\"")
        // Stored fields are refreshed from the 304 (RFC 9111 §4.3.4), the body and status stay.
        #expect(revalidated.header("X-Refreshed") == "yes")
        #expect(revalidated.originSequence == 2)
        #expect(revalidated.header("Age") != nil)
        let status = try #require(revalidated.cacheStatus)
        #expect(status["fwd"] == "stale")
        #expect(status["fwd-status"] == "304")
        #expect(origin.requests.count == 2)
        #expect(origin.requests.last?.header("If-None-Match") == "\"v1\"")

        // The refreshed entry is fresh again: a HIT with the refreshed fields, the origin not asked.
        let hit = try await Curl.get(url, via: larder)
        if hit.xCache == "HIT" {
            #expect(hit.header("X-Refreshed") == "yes")
            #expect(hit.bodyText == "validated body")
            #expect(origin.requests.count == 2)
        } else {
            // More than a second passed since the 304: it may have gone stale again, and was validated again.
            #expect(hit.xCache == "REVALIDATED")
        }
    }

    @Test("a stale entry whose origin sends a new response is EXPIRED, and the new body replaces it")
    func expiredReplaced() async throws {
        let origin = try OriginServer { request in
            .ok("version \(request.sequence)", cacheControl: "max-age=1", [OriginResponse.dateHeader()])
        }
        let larder = try await Daemon.start()
        let url = origin.url("/expires")
        #expect(try await Curl.get(url, via: larder).bodyText == "version 1")
        try await CachePoll.untilStale(url, in: larder)
        let expired = try await Curl.get(url, via: larder)
        #expect(expired.xCache == "EXPIRED")
        #expect(expired.bodyText == "version 2")
        #expect(expired.cacheStatus?["fwd"] == "stale")
        #expect(expired.cacheStatus?.has("stored") == true)
        let after = try await Curl.get(url, via: larder)
        if after.xCache == "HIT" { #expect(after.bodyText == "version 2") }
    }

    @Test("the client's own If-None-Match on a fresh entry is answered 304 from the cache")
    func clientConditionalFromCache() async throws {
        let origin = try OriginServer { _ in .ok("etagged", cacheControl: "max-age=60", [("ETag", "\"abc\"")]) }
        let larder = try await Daemon.start()
        let url = origin.url("/cond")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")

        let notModified = try await Curl.get(url, via: larder, headers: ["If-None-Match: \"abc\""])
        #expect(notModified.status == 304)
        #expect(notModified.body.isEmpty)
        #expect(notModified.xCache == "HIT")
        #expect(notModified.header("ETag") == "\"abc\"")
        #expect(notModified.header("Age") != nil)
        let other = try await Curl.get(url, via: larder, headers: ["If-None-Match: \"other\""])
        #expect(other.status == 200)
        #expect(other.xCache == "HIT")
        #expect(other.bodyText == "etagged")
        #expect(origin.requests.count == 1)
    }

    @Test("a 304 from the cache keeps the stored Cache-Status members of the caches before Larder, then adds its own (RFC 9211 §2)")
    func notModifiedKeepsUpstreamCacheStatus() async throws {
        let origin = try OriginServer { _ in
            .ok("chained", cacheControl: "max-age=60", [("ETag", "\"c1\""), ("Cache-Status", "cdn; fwd=uri-miss; stored")])
        }
        let larder = try await Daemon.start()
        let url = origin.url("/chain")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")

        let notModified = try await Curl.get(url, via: larder, headers: ["If-None-Match: \"c1\""])
        #expect(notModified.status == 304)
        let members = notModified.headers("Cache-Status")
        #expect(members.count == 2 && members.first == "cdn; fwd=uri-miss; stored", "\(members)")
        #expect(notModified.cacheStatus?.cache == "larder" && notModified.cacheStatus?.has("hit") == true, "\(members)")
        #expect(origin.requests.count == 1)
    }

    @Test(
        "a request that asks the origin to confirm goes to the origin",
        arguments: ["Cache-Control: no-cache", "Pragma: no-cache", "Cache-Control: max-age=0"]
    )
    func requestDirectivesReachOrigin(field: String) async throws {
        let origin = try OriginServer { request in
            .ok("version \(request.sequence)", cacheControl: "max-age=60", [OriginResponse.dateHeader()])
        }
        let larder = try await Daemon.start()
        let url = origin.url("/directive")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")
        try await CachePoll.until("Age to reach 1, so that max-age=0 refuses the entry") {
            (try await Curl.get(url, via: larder).age ?? 0) >= 1
        }

        let forced = try await Curl.get(url, via: larder, headers: [field])
        #expect(forced.status == 200)
        #expect(forced.bodyText == "version 2")
        #expect(forced.originSequence == 2)
        #expect(forced.cacheStatus?["fwd"] == "request")
        #expect(origin.requests.count == 2)
        // The new response replaced the stored one.
        let hit = try await Curl.get(url, via: larder)
        #expect(hit.xCache == "HIT")
        #expect(hit.bodyText == "version 2")
        #expect(origin.requests.count == 2)
    }

    @Test("no-cache from the client with a validator revalidates: the origin sees If-None-Match and says 304")
    func requestNoCacheRevalidates() async throws {
        let origin = try OriginServer { request in
            if request.header("If-None-Match") == "\"n1\"" {
                return OriginResponse(status: 304, headers: [("ETag", "\"n1\""), ("Cache-Control", "max-age=60")])
            }
            return .ok("kept", cacheControl: "max-age=60", [("ETag", "\"n1\"")])
        }
        let larder = try await Daemon.start()
        let url = origin.url("/nocache-etag")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")
        let confirmed = try await Curl.get(url, via: larder, headers: ["Cache-Control: no-cache"])
        #expect(confirmed.status == 200)
        #expect(confirmed.xCache == "REVALIDATED")
        #expect(confirmed.bodyText == "kept")
        #expect(confirmed.cacheStatus?["fwd"] == "request")
        #expect(origin.requests.count == 2)
        #expect(origin.requests.last?.header("If-None-Match") == "\"n1\"")
    }

    @Test("only-if-cached with nothing stored is a 504, and the origin is never contacted")
    func onlyIfCachedMiss() async throws {
        let origin = try OriginServer { _ in .ok("never", cacheControl: "max-age=60") }
        let larder = try await Daemon.start()
        let url = origin.url("/oic")
        let result = try await Curl.get(url, via: larder, headers: ["Cache-Control: only-if-cached"])
        #expect(result.status == 504)
        #expect(result.xCache == "MISS")
        #expect(result.header("Cache-Status")?.hasPrefix("larder; fwd=miss") == true)
        #expect(origin.requests.isEmpty)

        #expect(try await Curl.get(url, via: larder).xCache == "MISS")
        let cached = try await Curl.get(url, via: larder, headers: ["Cache-Control: only-if-cached"])
        #expect(cached.status == 200)
        #expect(cached.xCache == "HIT")
        #expect(cached.bodyText == "never")
        #expect(origin.requests.count == 1)
    }

    @Test("max-stale lets the client take a stale entry without the origin")
    func maxStale() async throws {
        let origin = try OriginServer { request in
            .ok("version \(request.sequence)", cacheControl: "max-age=1", [OriginResponse.dateHeader()])
        }
        let larder = try await Daemon.start()
        let url = origin.url("/max-stale")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")
        try await CachePoll.untilStale(url, in: larder)
        let stale = try await Curl.get(url, via: larder, headers: ["Cache-Control: max-stale=60"])
        #expect(stale.xCache == "STALE")
        #expect(stale.bodyText == "version 1")
        #expect(try #require(stale.age) >= 1)
        #expect(origin.requests.count == 1)
    }
}
