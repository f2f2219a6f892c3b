import CachePolicy
import HTTPWire
import Testing

/// One row of a plan table. The entry was requested and received at `t0`; `now` is an offset from `t0`.
struct PlanCase: Sendable, CustomTestStringConvertible {
    var name: String
    var method = "GET"
    var incoming: [String] = []
    var stored: [String]? = PlanCase.standard
    var storedRequest: [String] = []
    var now: Int64
    var cap = StoreOptions.defaultHeuristicFreshnessCap
    var expected: CachePlan

    var testDescription: String { name }

    /// Fresh for 100 s from `t0`, with an entity tag.
    static let standard = ["Date: \(date(0))", "Cache-Control: max-age=100", "ETag: \"v1\""]

    /// `standard` with other Cache-Control directives.
    static func with(_ cacheControl: String) -> [String] {
        ["Date: \(date(0))", "Cache-Control: \(cacheControl)", "ETag: \"v1\""]
    }

    /// The plan, checked to be the same when the entry comes with its facts already parsed (as the proxy's hits do).
    func plan() -> CachePlan {
        let candidate = stored.map { entry(response(200, $0), requestLines: storedRequest) }
        let parsed = RFC9111.plan(
            request: request(method, incoming), entry: candidate, now: t0 + now, heuristicFreshnessCap: cap)
        var withFacts = candidate
        withFacts?.facts = candidate.map { StoredResponseFacts(response: $0.response, times: $0.times, heuristicCap: cap) }
        let reused = RFC9111.plan(
            request: request(method, incoming), entry: withFacts, now: t0 + now, heuristicFreshnessCap: cap)
        #expect(reused == parsed, "with parsed facts: \(reused)")
        return parsed
    }
}

/// The conditional fields for the standard entry.
private let ifNoneMatch = fields(["If-None-Match: \"v1\""])

@Suite("RFC 9111 §4 constructing responses from caches")
struct PlanTests {
    static let basics: [PlanCase] = [
        PlanCase(name: "nothing stored", stored: nil, now: 0, expected: .forward(reason: .uriMiss)),
        PlanCase(
            name: "POST is not served from the cache", method: "POST", now: 10, expected: .forward(reason: .method)),
        PlanCase(
            name: "DELETE is not served from the cache", method: "DELETE", now: 10, expected: .forward(reason: .method)),
        PlanCase(name: "fresh GET", now: 10, expected: .serve(age: 10, ttl: 90)),
        PlanCase(
            name: "HEAD is answered from the stored GET", method: "HEAD", now: 10, expected: .serve(age: 10, ttl: 90)),
        PlanCase(name: "one second before expiry", now: 99, expected: .serve(age: 99, ttl: 1)),
        PlanCase(
            name: "age equal to the lifetime is stale", now: 100,
            expected: .revalidate(conditionalHeaders: ifNoneMatch, age: 100, because: .stale)),
        PlanCase(
            name: "stale with Last-Modified only",
            stored: ["Cache-Control: max-age=10", "Last-Modified: \(date(-50))"], now: 20,
            expected: .revalidate(
                conditionalHeaders: fields(["If-Modified-Since: \(date(-50))"]), age: 20, because: .stale)),
        PlanCase(
            name: "stale with Date only", stored: ["Date: \(date(0))", "Cache-Control: max-age=10"], now: 20,
            expected: .revalidate(
                conditionalHeaders: fields(["If-Modified-Since: \(date(0))"]), age: 20, because: .stale)),
        PlanCase(
            name: "stale without any validator", stored: ["Cache-Control: max-age=10"], now: 20,
            expected: .forward(reason: .stale)),
        PlanCase(
            name: "Expires in the future", stored: ["Date: \(date(0))", "Expires: \(date(50))"], now: 49,
            expected: .serve(age: 49, ttl: 1)),
        PlanCase(
            name: "the origin's Age counts", stored: PlanCase.standard + ["Age: 30"], now: 10,
            expected: .serve(age: 40, ttl: 60)),
        PlanCase(
            name: "heuristic freshness", stored: ["Date: \(date(0))", "Last-Modified: \(date(-10000))"], now: 500,
            expected: .serve(age: 500, ttl: 500)),
        PlanCase(
            name: "heuristic freshness under a smaller cap",
            stored: ["Date: \(date(0))", "Last-Modified: \(date(-10000))"],
            now: 500, cap: 100,
            expected: .revalidate(
                conditionalHeaders: fields(["If-Modified-Since: \(date(-10000))"]), age: 500, because: .stale)),
        PlanCase(
            name: "response Pragma: no-cache means nothing", stored: PlanCase.standard + ["Pragma: no-cache"], now: 10,
            expected: .serve(age: 10, ttl: 90)),
        PlanCase(
            name: "request no-store does not prevent serving", incoming: ["Cache-Control: no-store"], now: 10,
            expected: .serve(age: 10, ttl: 90)),
        PlanCase(
            name: "a Range request gets the whole stored response", incoming: ["Range: bytes=0-1"], now: 10,
            expected: .serve(age: 10, ttl: 90)),
    ]

    @Test("a fresh stored response is served, a stale one validated (§4, §4.2, §4.3.1)", arguments: basics)
    func basicPlans(_ row: PlanCase) {
        #expect(row.plan() == row.expected)
    }

    static let vary: [PlanCase] = [
        PlanCase(
            name: "matching variant", incoming: ["Accept-Encoding: gzip"],
            stored: PlanCase.standard + ["Vary: Accept-Encoding"],
            storedRequest: ["Accept-Encoding: gzip"], now: 10, expected: .serve(age: 10, ttl: 90)),
        PlanCase(
            name: "other variant", incoming: ["Accept-Encoding: br"],
            stored: PlanCase.standard + ["Vary: Accept-Encoding"],
            storedRequest: ["Accept-Encoding: gzip"], now: 10, expected: .forward(reason: .varyMiss)),
        PlanCase(
            name: "Vary: *", stored: PlanCase.standard + ["Vary: *"], now: 10, expected: .forward(reason: .varyMiss)),
        PlanCase(
            name: "other variant with only-if-cached",
            incoming: ["Accept-Encoding: br", "Cache-Control: only-if-cached"],
            stored: PlanCase.standard + ["Vary: Accept-Encoding"], storedRequest: ["Accept-Encoding: gzip"], now: 10,
            expected: .onlyIfCachedMiss),
    ]

    @Test("a stored response is used only when its Vary fields match (§4.1)", arguments: vary)
    func varyPlans(_ row: PlanCase) {
        #expect(row.plan() == row.expected)
    }

    static let requestNoCache: [PlanCase] = [
        PlanCase(
            name: "Cache-Control: no-cache", incoming: ["Cache-Control: no-cache"], now: 10,
            expected: .revalidate(conditionalHeaders: ifNoneMatch, age: 10, because: .request)),
        PlanCase(
            name: "Pragma: no-cache", incoming: ["Pragma: no-cache"], now: 10,
            expected: .revalidate(conditionalHeaders: ifNoneMatch, age: 10, because: .request)),
        PlanCase(
            name: "Pragma ignored beside Cache-Control", incoming: ["Pragma: no-cache", "Cache-Control: max-age=1000"],
            now: 10,
            expected: .serve(age: 10, ttl: 90)),
        PlanCase(
            name: "no-cache without a validator", incoming: ["Cache-Control: no-cache"],
            stored: ["Cache-Control: max-age=100"], now: 10, expected: .forward(reason: .request)),
        PlanCase(
            name: "no-cache with only-if-cached", incoming: ["Cache-Control: no-cache, only-if-cached"], now: 10,
            expected: .onlyIfCachedMiss),
    ]

    @Test("request no-cache and Pragma: no-cache go to the origin (§5.2.1.4, §5.4)", arguments: requestNoCache)
    func requestNoCachePlans(_ row: PlanCase) {
        #expect(row.plan() == row.expected)
    }

    static let requestMaxAge: [PlanCase] = [
        PlanCase(
            name: "older than max-age", incoming: ["Cache-Control: max-age=5"], now: 10,
            expected: .revalidate(conditionalHeaders: ifNoneMatch, age: 10, because: .request)),
        PlanCase(
            name: "exactly max-age", incoming: ["Cache-Control: max-age=10"], now: 10,
            expected: .serve(age: 10, ttl: 90)),
        PlanCase(
            name: "max-age=0 at age 0", incoming: ["Cache-Control: max-age=0"], now: 0,
            expected: .serve(age: 0, ttl: 100)),
        PlanCase(
            name: "max-age=0 at age 1", incoming: ["Cache-Control: max-age=0"], now: 1,
            expected: .revalidate(conditionalHeaders: ifNoneMatch, age: 1, because: .request)),
        PlanCase(
            name: "a large max-age does not admit a stale response", incoming: ["Cache-Control: max-age=500"], now: 150,
            expected: .revalidate(conditionalHeaders: ifNoneMatch, age: 150, because: .stale)),
    ]

    @Test("request max-age limits the age the client accepts (§5.2.1.1)", arguments: requestMaxAge)
    func requestMaxAgePlans(_ row: PlanCase) {
        #expect(row.plan() == row.expected)
    }

    static let maxStale: [PlanCase] = [
        PlanCase(
            name: "max-stale without a value", incoming: ["Cache-Control: max-stale"], now: 500,
            expected: .serveStale(age: 500, because: .maxStale)),
        PlanCase(
            name: "stale by less than max-stale", incoming: ["Cache-Control: max-stale=60"], now: 150,
            expected: .serveStale(age: 150, because: .maxStale)),
        PlanCase(
            name: "stale by exactly max-stale", incoming: ["Cache-Control: max-stale=60"], now: 160,
            expected: .serveStale(age: 160, because: .maxStale)),
        PlanCase(
            name: "stale by more than max-stale", incoming: ["Cache-Control: max-stale=60"], now: 161,
            expected: .revalidate(conditionalHeaders: ifNoneMatch, age: 161, because: .stale)),
        PlanCase(
            name: "fresh with max-stale", incoming: ["Cache-Control: max-stale=60"], now: 10,
            expected: .serve(age: 10, ttl: 90)),
        PlanCase(
            name: "max-stale and a max-age it exceeds", incoming: ["Cache-Control: max-stale=60, max-age=120"],
            now: 150,
            expected: .revalidate(conditionalHeaders: ifNoneMatch, age: 150, because: .stale)),
        PlanCase(
            name: "max-stale and a max-age it meets", incoming: ["Cache-Control: max-stale=60, max-age=200"], now: 150,
            expected: .serveStale(age: 150, because: .maxStale)),
        PlanCase(
            name: "max-stale and min-fresh", incoming: ["Cache-Control: max-stale, min-fresh=0"], now: 150,
            expected: .revalidate(conditionalHeaders: ifNoneMatch, age: 150, because: .stale)),
        PlanCase(
            name: "max-stale with only-if-cached", incoming: ["Cache-Control: max-stale, only-if-cached"], now: 150,
            expected: .serveStale(age: 150, because: .maxStale)),
    ]

    @Test("request max-stale admits a stale response within its limit (§5.2.1.2)", arguments: maxStale)
    func maxStalePlans(_ row: PlanCase) {
        #expect(row.plan() == row.expected)
    }

    static let minFresh: [PlanCase] = [
        PlanCase(
            name: "more freshness left than asked", incoming: ["Cache-Control: min-fresh=50"], now: 10,
            expected: .serve(age: 10, ttl: 90)),
        PlanCase(
            name: "exactly as much freshness left", incoming: ["Cache-Control: min-fresh=90"], now: 10,
            expected: .serve(age: 10, ttl: 90)),
        PlanCase(
            name: "less freshness left than asked", incoming: ["Cache-Control: min-fresh=91"], now: 10,
            expected: .revalidate(conditionalHeaders: ifNoneMatch, age: 10, because: .request)),
    ]

    @Test("request min-fresh asks for freshness left of at least its value (§5.2.1.3)", arguments: minFresh)
    func minFreshPlans(_ row: PlanCase) {
        #expect(row.plan() == row.expected)
    }

    static let onlyIfCached: [PlanCase] = [
        PlanCase(
            name: "nothing stored", incoming: ["Cache-Control: only-if-cached"], stored: nil, now: 0,
            expected: .onlyIfCachedMiss),
        PlanCase(
            name: "fresh", incoming: ["Cache-Control: only-if-cached"], now: 10, expected: .serve(age: 10, ttl: 90)),
        PlanCase(
            name: "stale with a validator", incoming: ["Cache-Control: only-if-cached"], now: 150,
            expected: .onlyIfCachedMiss),
        PlanCase(
            name: "stale without a validator", incoming: ["Cache-Control: only-if-cached"],
            stored: ["Cache-Control: max-age=10"],
            now: 150, expected: .onlyIfCachedMiss),
        PlanCase(
            name: "fresh but older than max-age", incoming: ["Cache-Control: only-if-cached, max-age=5"], now: 10,
            expected: .onlyIfCachedMiss),
        PlanCase(
            name: "a non-GET method", method: "POST", incoming: ["Cache-Control: only-if-cached"], now: 10,
            expected: .forward(reason: .method)),
    ]

    @Test("only-if-cached is answered from the cache or with 504 (§5.2.1.7)", arguments: onlyIfCached)
    func onlyIfCachedPlans(_ row: PlanCase) {
        #expect(row.plan() == row.expected)
    }

    static let responseDirectives: [PlanCase] = [
        PlanCase(
            name: "must-revalidate, fresh", stored: PlanCase.with("max-age=100, must-revalidate"), now: 10,
            expected: .serve(age: 10, ttl: 90)),
        PlanCase(
            name: "must-revalidate, stale", stored: PlanCase.with("max-age=100, must-revalidate"), now: 150,
            expected: .revalidate(conditionalHeaders: ifNoneMatch, age: 150, because: .stale)),
        PlanCase(
            name: "must-revalidate against max-stale", incoming: ["Cache-Control: max-stale"],
            stored: PlanCase.with("max-age=100, must-revalidate"), now: 150,
            expected: .revalidate(conditionalHeaders: ifNoneMatch, age: 150, because: .stale)),
        PlanCase(
            name: "must-revalidate against stale-while-revalidate",
            stored: PlanCase.with("max-age=100, must-revalidate, stale-while-revalidate=60"), now: 150,
            expected: .revalidate(conditionalHeaders: ifNoneMatch, age: 150, because: .stale)),
        PlanCase(
            name: "must-revalidate, stale, only-if-cached", incoming: ["Cache-Control: only-if-cached, max-stale"],
            stored: PlanCase.with("max-age=100, must-revalidate"), now: 150, expected: .onlyIfCachedMiss),
        PlanCase(
            name: "proxy-revalidate against max-stale", incoming: ["Cache-Control: max-stale"],
            stored: PlanCase.with("max-age=100, proxy-revalidate"), now: 150,
            expected: .revalidate(conditionalHeaders: ifNoneMatch, age: 150, because: .stale)),
        PlanCase(
            name: "proxy-revalidate against stale-while-revalidate",
            stored: PlanCase.with("max-age=100, proxy-revalidate, stale-while-revalidate=60"), now: 150,
            expected: .revalidate(conditionalHeaders: ifNoneMatch, age: 150, because: .stale)),
        PlanCase(
            name: "s-maxage over max-age", stored: PlanCase.with("max-age=100, s-maxage=10"), now: 50,
            expected: .revalidate(conditionalHeaders: ifNoneMatch, age: 50, because: .stale)),
        PlanCase(
            name: "s-maxage, fresh", stored: PlanCase.with("s-maxage=100"), now: 10, expected: .serve(age: 10, ttl: 90)),
        PlanCase(
            name: "s-maxage against max-stale", incoming: ["Cache-Control: max-stale"],
            stored: PlanCase.with("s-maxage=100"),
            now: 150, expected: .revalidate(conditionalHeaders: ifNoneMatch, age: 150, because: .stale)),
        PlanCase(
            name: "s-maxage against stale-while-revalidate",
            stored: PlanCase.with("s-maxage=100, stale-while-revalidate=60"),
            now: 150, expected: .revalidate(conditionalHeaders: ifNoneMatch, age: 150, because: .stale)),
        PlanCase(
            name: "no-cache, fresh", stored: PlanCase.with("max-age=100, no-cache"), now: 10,
            expected: .revalidate(conditionalHeaders: ifNoneMatch, age: 10, because: .stale)),
        PlanCase(
            name: "qualified no-cache is treated as unqualified",
            stored: PlanCase.with("max-age=100, no-cache=\"Set-Cookie\""),
            now: 10, expected: .revalidate(conditionalHeaders: ifNoneMatch, age: 10, because: .stale)),
        PlanCase(
            name: "no-cache without a validator", stored: ["Cache-Control: max-age=100, no-cache"], now: 10,
            expected: .forward(reason: .stale)),
        PlanCase(
            name: "no-cache against max-stale", incoming: ["Cache-Control: max-stale"],
            stored: PlanCase.with("no-cache"), now: 10,
            expected: .revalidate(conditionalHeaders: ifNoneMatch, age: 10, because: .stale)),
        PlanCase(
            name: "immutable changes nothing for a shared cache", incoming: ["Cache-Control: no-cache"],
            stored: PlanCase.with("max-age=100, immutable"), now: 10,
            expected: .revalidate(conditionalHeaders: ifNoneMatch, age: 10, because: .request)),
    ]

    @Test(
        "must-revalidate, proxy-revalidate, s-maxage and no-cache forbid serving without validation (§4.2.4, §5.2.2)",
        arguments: responseDirectives)
    func responseDirectivePlans(_ row: PlanCase) {
        #expect(row.plan() == row.expected)
    }

    static let staleWhileRevalidate: [PlanCase] = [
        PlanCase(
            name: "inside the window", stored: PlanCase.with("max-age=100, stale-while-revalidate=30"), now: 120,
            expected: .serveStale(age: 120, because: .whileRevalidate)),
        PlanCase(
            name: "at the end of the window", stored: PlanCase.with("max-age=100, stale-while-revalidate=30"), now: 130,
            expected: .serveStale(age: 130, because: .whileRevalidate)),
        PlanCase(
            name: "past the window", stored: PlanCase.with("max-age=100, stale-while-revalidate=30"), now: 131,
            expected: .revalidate(conditionalHeaders: ifNoneMatch, age: 131, because: .stale)),
        PlanCase(
            name: "past the window, no validator", stored: ["Cache-Control: max-age=100, stale-while-revalidate=30"],
            now: 131, expected: .forward(reason: .stale)),
        PlanCase(
            name: "fresh: served fresh", stored: PlanCase.with("max-age=100, stale-while-revalidate=30"), now: 10,
            expected: .serve(age: 10, ttl: 90)),
        PlanCase(
            name: "the client's no-cache wins", incoming: ["Cache-Control: no-cache"],
            stored: PlanCase.with("max-age=100, stale-while-revalidate=30"), now: 120,
            expected: .revalidate(conditionalHeaders: ifNoneMatch, age: 120, because: .request)),
        PlanCase(
            name: "the client's max-age refuses stale", incoming: ["Cache-Control: max-age=500"],
            stored: PlanCase.with("max-age=100, stale-while-revalidate=30"), now: 120,
            expected: .revalidate(conditionalHeaders: ifNoneMatch, age: 120, because: .stale)),
        PlanCase(
            name: "the client's min-fresh refuses stale", incoming: ["Cache-Control: min-fresh=1"],
            stored: PlanCase.with("max-age=100, stale-while-revalidate=30"), now: 120,
            expected: .revalidate(conditionalHeaders: ifNoneMatch, age: 120, because: .stale)),
        PlanCase(
            name: "with only-if-cached", incoming: ["Cache-Control: only-if-cached"],
            stored: PlanCase.with("max-age=100, stale-while-revalidate=30"), now: 120,
            expected: .serveStale(age: 120, because: .whileRevalidate)),
    ]

    @Test(
        "stale-while-revalidate serves a stale response inside its window and refreshes it (RFC 5861 §3)",
        arguments: staleWhileRevalidate)
    func staleWhileRevalidatePlans(_ row: PlanCase) {
        #expect(row.plan() == row.expected)
    }

    static let clientConditional: [PlanCase] = [
        PlanCase(
            name: "If-None-Match matches a fresh entry", incoming: ["If-None-Match: \"v1\""], now: 10,
            expected: .serveNotModified(age: 10, ttl: 90)),
        PlanCase(
            name: "weak If-None-Match matches", incoming: ["If-None-Match: W/\"v1\""], now: 10,
            expected: .serveNotModified(age: 10, ttl: 90)),
        PlanCase(
            name: "If-None-Match does not match", incoming: ["If-None-Match: \"v2\""], now: 10,
            expected: .serve(age: 10, ttl: 90)),
        PlanCase(
            name: "If-Modified-Since at or after Last-Modified", incoming: ["If-Modified-Since: \(date(-5))"],
            stored: PlanCase.standard + ["Last-Modified: \(date(-5))"], now: 10,
            expected: .serveNotModified(age: 10, ttl: 90)),
        PlanCase(
            name: "If-Modified-Since before Last-Modified", incoming: ["If-Modified-Since: \(date(-6))"],
            stored: PlanCase.standard + ["Last-Modified: \(date(-5))"], now: 10, expected: .serve(age: 10, ttl: 90)),
        PlanCase(
            name: "a matching condition on a stale entry is validated first", incoming: ["If-None-Match: \"v1\""],
            now: 150,
            expected: .revalidate(conditionalHeaders: ifNoneMatch, age: 150, because: .stale)),
        PlanCase(
            name: "If-Match is for the origin", incoming: ["If-Match: \"v1\""], now: 10,
            expected: .forward(reason: .request)),
        PlanCase(
            name: "If-Unmodified-Since is for the origin", incoming: ["If-Unmodified-Since: \(date(0))"], now: 10,
            expected: .forward(reason: .request)),
        PlanCase(
            name: "If-Match with only-if-cached", incoming: ["If-Match: \"v1\"", "Cache-Control: only-if-cached"],
            now: 10,
            expected: .onlyIfCachedMiss),
    ]

    @Test(
        "a client's conditional request is answered 304 from a fresh entry when it matches (§4.3.2)",
        arguments: clientConditional)
    func clientConditionalPlans(_ row: PlanCase) {
        #expect(row.plan() == row.expected)
    }
}
