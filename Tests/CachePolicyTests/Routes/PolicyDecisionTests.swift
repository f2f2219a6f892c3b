import CachePolicy
import HTTPWire
import Testing

/// One row of a decision table. The stored response was requested and received at `t0`, is fresh for 100 s by its
/// own headers and has an entity tag; the route adds `ttl` 60, `maxStale` 120, `staleIfError` 300,
/// `errorBackoff` 10 where its policy reads them. `now` is an offset from `t0`.
struct DecisionCase: Sendable, CustomTestStringConvertible {
    var name: String
    var policy: RoutePolicy
    /// The route's options instead of the policy's usual ones.
    var extra = ""
    var method = "GET"
    var incoming: [String] = []
    var stored: [String]? = DecisionCase.storedLines
    var now: Int64
    /// Seconds after `t0` the origin last failed, for an open back-off window.
    var failedAt: Int64?
    var expected: PolicyDecision

    var testDescription: String { "\(policy.rawValue): \(name)" }

    static let storedLines = ["Date: \(date(0))", "Cache-Control: max-age=100", "ETag: \"v1\""]
    static let key = "GET http://example.test/a"

    func decide() -> PolicyDecision {
        var options = ""
        switch policy {
        case .standard: options = #""staleIfError": "300s""#
        case .cacheFirst: options = #""ttl": "60s", "staleIfError": "300s""#
        case .networkFirst: options = #""staleIfError": "300s""#
        case .staleWhileRevalidate: options = #""ttl": "60s", "maxStale": "120s", "staleIfError": "300s""#
        case .networkOnly, .cacheOnly: options = ""
        }
        if !extra.isEmpty { options = extra }
        let route = route(
            """
            {"name": "r", "match": {"host": "example.test", "methods": ["GET", "POST"]}, "policy": "\(policy.rawValue)",
             "errorBackoff": "10s"\(options.isEmpty ? "" : ", " + options)}
            """)
        var backoff = ErrorBackoff()
        if let failedAt { backoff.recordFailure(at: t0 + failedAt) }
        return PolicyDecision(
            request: request(method, incoming), route: route, entry: stored.map { entry(response(200, $0)) },
            key: DecisionCase.key, now: t0 + now, backoff: backoff)
    }
}

private let ifNoneMatch = fields(["If-None-Match: \"v1\""])

private func fetch(
    _ reason: ForwardReason, conditional: Bool = true, until: Int64? = nil, lifetime: Int64? = nil
) -> PolicyDecision {
    .fetch(
        FetchPlan(
            conditionalHeaders: conditional ? ifNoneMatch : [:], reason: reason,
            staleIfErrorUntil: until.map { t0 + $0 },
            lifetime: lifetime))
}

@Suite("Route policies: what to do before a fetch")
struct PolicyDecisionTests {
    static let standard: [DecisionCase] = [
        DecisionCase(
            name: "no entry", policy: .standard, stored: nil, now: 0, expected: fetch(.uriMiss, conditional: false)),
        DecisionCase(name: "fresh", policy: .standard, now: 30, expected: .serve(age: 30, ttl: 70)),
        DecisionCase(
            name: "expired: validate, with the route's staleIfError past the origin's lifetime", policy: .standard,
            now: 150, expected: fetch(.stale, until: 400)),
        DecisionCase(
            name: "client no-cache", policy: .standard, incoming: ["Cache-Control: no-cache"], now: 30,
            expected: fetch(.request, until: 400)),
        DecisionCase(
            name: "client Pragma: no-cache", policy: .standard, incoming: ["Pragma: no-cache"], now: 30,
            expected: fetch(.request, until: 400)),
        DecisionCase(
            name: "client no-cache ignored", policy: .standard,
            extra: #""staleIfError": "300s", "clientRefresh": "ignore""#,
            incoming: ["Cache-Control: no-cache, max-stale=5", "Pragma: no-cache"], now: 30,
            expected: .serve(age: 30, ttl: 70)),
        DecisionCase(
            name: "origin failing: stale at once while the back-off window is open", policy: .standard, now: 150,
            failedAt: 145, expected: .serveStale(age: 150, ttl: -50, because: .error, refresh: false)),
        DecisionCase(
            name: "origin failing, window closed: try it again", policy: .standard, now: 150, failedAt: 140,
            expected: fetch(.stale, until: 400)),
        DecisionCase(
            name: "origin failing, past staleIfError: try it", policy: .standard, now: 450, failedAt: 445,
            expected: fetch(.stale)),
        DecisionCase(
            name: "the response's stale-if-error wins over the route's", policy: .standard,
            stored: DecisionCase.storedLines + ["Cache-Control: stale-if-error=60"], now: 150,
            expected: fetch(.stale, until: 160)),
        DecisionCase(
            name: "must-revalidate: never stale", policy: .standard,
            stored: DecisionCase.storedLines + ["Cache-Control: must-revalidate"], now: 150, failedAt: 145,
            expected: fetch(.stale)),
        DecisionCase(
            name: "the origin's stale-while-revalidate refreshes in the background", policy: .standard,
            stored: DecisionCase.storedLines + ["Cache-Control: stale-while-revalidate=100"], now: 150,
            expected: .serveStale(age: 150, ttl: -50, because: .whileRevalidate, refresh: true)),
        DecisionCase(
            name: "only-if-cached with nothing fresh", policy: .standard, incoming: ["Cache-Control: only-if-cached"],
            now: 150, expected: .onlyIfCachedMiss(key: DecisionCase.key)),
        DecisionCase(
            name: "POST goes to the origin", policy: .standard, method: "POST", now: 30,
            expected: fetch(.method, conditional: false)),
    ]

    static let cacheFirst: [DecisionCase] = [
        DecisionCase(
            name: "no entry", policy: .cacheFirst, stored: nil, now: 0,
            expected: fetch(.uriMiss, conditional: false, lifetime: 60)),
        DecisionCase(name: "younger than ttl", policy: .cacheFirst, now: 30, expected: .serve(age: 30, ttl: 30)),
        DecisionCase(
            name: "ttl wins over the origin's no-cache and max-age=0", policy: .cacheFirst,
            stored: ["Cache-Control: no-cache, max-age=0", "ETag: \"v1\""], now: 30,
            expected: .serve(age: 30, ttl: 30)),
        DecisionCase(
            name: "as old as ttl: fetch, conditionally", policy: .cacheFirst, now: 60,
            expected: fetch(.stale, until: 360, lifetime: 60)),
        DecisionCase(
            name: "expired", policy: .cacheFirst, now: 150, expected: fetch(.stale, until: 360, lifetime: 60)),
        DecisionCase(
            name: "client no-cache", policy: .cacheFirst, incoming: ["Cache-Control: no-cache"], now: 30,
            expected: fetch(.request, until: 360, lifetime: 60)),
        DecisionCase(
            name: "client no-cache ignored", policy: .cacheFirst,
            extra: #""ttl": "60s", "staleIfError": "300s", "clientRefresh": "ignore""#,
            incoming: ["Pragma: no-cache"], now: 30, expected: .serve(age: 30, ttl: 30)),
        DecisionCase(
            name: "origin failing: stale at once", policy: .cacheFirst, now: 150, failedAt: 150,
            expected: .serveStale(age: 150, ttl: -90, because: .error, refresh: false)),
        DecisionCase(
            name: "origin failing, client no-cache: still stale at once", policy: .cacheFirst,
            incoming: ["Cache-Control: no-cache"], now: 30, failedAt: 25,
            expected: .serveStale(age: 30, ttl: 30, because: .error, refresh: false)),
        DecisionCase(
            name: "origin failing, fresh: served as usual", policy: .cacheFirst, now: 30, failedAt: 25,
            expected: .serve(age: 30, ttl: 30)),
        DecisionCase(
            name: "client's conditional request matches", policy: .cacheFirst, incoming: ["If-None-Match: \"v1\""],
            now: 30, expected: .serveNotModified(age: 30, ttl: 30)),
        DecisionCase(
            name: "only-if-cached and expired", policy: .cacheFirst, incoming: ["Cache-Control: only-if-cached"],
            now: 150, expected: .onlyIfCachedMiss(key: DecisionCase.key)),
        DecisionCase(
            name: "the stored variant's Vary does not match", policy: .cacheFirst,
            incoming: ["Accept: text/html"], stored: DecisionCase.storedLines + ["Vary: Accept"], now: 30,
            expected: fetch(.varyMiss, conditional: false, lifetime: 60)),
        DecisionCase(
            name: "If-Match is the origin's to evaluate", policy: .cacheFirst, incoming: ["If-Match: \"v1\""], now: 30,
            expected: fetch(.request, conditional: false, lifetime: 60)),
        DecisionCase(
            name: "POST without key.body is not cached", policy: .cacheFirst, method: "POST", now: 30,
            expected: fetch(.method, conditional: false)),
        DecisionCase(
            name: "POST with key.body is cached", policy: .cacheFirst,
            extra: #""ttl": "60s", "staleIfError": "300s", "key": {"body": true}"#,
            method: "POST", now: 30, expected: .serve(age: 30, ttl: 30)),
    ]

    static let networkFirst: [DecisionCase] = [
        DecisionCase(
            name: "no entry", policy: .networkFirst, stored: nil, now: 0,
            expected: fetch(.uriMiss, conditional: false, lifetime: 0)),
        DecisionCase(
            name: "fresh by the origin's headers: fetch anyway", policy: .networkFirst, now: 30,
            expected: fetch(.stale, until: 300, lifetime: 0)),
        DecisionCase(
            name: "expired", policy: .networkFirst, now: 150, expected: fetch(.stale, until: 300, lifetime: 0)),
        DecisionCase(
            name: "older than staleIfError: no stand-in", policy: .networkFirst, now: 301,
            expected: fetch(.stale, lifetime: 0)),
        DecisionCase(
            name: "client no-cache", policy: .networkFirst, incoming: ["Cache-Control: no-cache"], now: 30,
            expected: fetch(.request, until: 300, lifetime: 0)),
        DecisionCase(
            name: "origin failing: stale at once", policy: .networkFirst, now: 150, failedAt: 141,
            expected: .serveStale(age: 150, ttl: -150, because: .error, refresh: false)),
        DecisionCase(
            name: "origin failing, nothing within staleIfError: try it", policy: .networkFirst, now: 350, failedAt: 345,
            expected: fetch(.stale, lifetime: 0)),
        DecisionCase(
            name: "without staleIfError, never a stand-in", policy: .networkFirst, extra: #""staleIfError": null"#,
            now: 30, failedAt: 25, expected: fetch(.stale, lifetime: 0)),
    ]

    static let staleWhileRevalidate: [DecisionCase] = [
        DecisionCase(
            name: "no entry", policy: .staleWhileRevalidate, stored: nil, now: 0,
            expected: fetch(.uriMiss, conditional: false, lifetime: 60)),
        DecisionCase(
            name: "younger than ttl", policy: .staleWhileRevalidate, now: 30, expected: .serve(age: 30, ttl: 30)),
        DecisionCase(
            name: "within ttl + maxStale: stale now, refreshed in the background", policy: .staleWhileRevalidate,
            now: 150, expected: .serveStale(age: 150, ttl: -90, because: .whileRevalidate, refresh: true)),
        DecisionCase(
            name: "at ttl + maxStale", policy: .staleWhileRevalidate, now: 180,
            expected: .serveStale(age: 180, ttl: -120, because: .whileRevalidate, refresh: true)),
        DecisionCase(
            name: "past ttl + maxStale: fetch", policy: .staleWhileRevalidate, now: 200,
            expected: fetch(.stale, until: 480, lifetime: 60)),
        DecisionCase(
            name: "client no-cache", policy: .staleWhileRevalidate, incoming: ["Cache-Control: no-cache"], now: 30,
            expected: fetch(.request, until: 480, lifetime: 60)),
        DecisionCase(
            name: "origin failing, within maxStale: stale, no refresh", policy: .staleWhileRevalidate, now: 150,
            failedAt: 145, expected: .serveStale(age: 150, ttl: -90, because: .whileRevalidate, refresh: false)),
        DecisionCase(
            name: "origin failing, past maxStale: stale at once", policy: .staleWhileRevalidate, now: 200,
            failedAt: 195, expected: .serveStale(age: 200, ttl: -140, because: .error, refresh: false)),
        DecisionCase(
            name: "without staleIfError the stand-in lasts ttl + maxStale", policy: .staleWhileRevalidate,
            extra: #""ttl": "60s", "maxStale": "120s""#, incoming: ["Cache-Control: no-cache"], now: 30,
            expected: fetch(.request, until: 180, lifetime: 60)),
    ]

    static let networkOnly: [DecisionCase] = [
        DecisionCase(name: "no entry", policy: .networkOnly, stored: nil, now: 0, expected: .bypass),
        DecisionCase(name: "fresh", policy: .networkOnly, now: 30, expected: .bypass),
        DecisionCase(name: "expired", policy: .networkOnly, now: 150, expected: .bypass),
        DecisionCase(
            name: "client no-cache", policy: .networkOnly, incoming: ["Cache-Control: no-cache"], now: 30,
            expected: .bypass),
        DecisionCase(name: "origin failing", policy: .networkOnly, now: 150, failedAt: 145, expected: .bypass),
        DecisionCase(name: "POST", policy: .networkOnly, method: "POST", now: 30, expected: .bypass),
    ]

    static let cacheOnly: [DecisionCase] = [
        DecisionCase(
            name: "no entry: 504 naming the key", policy: .cacheOnly, stored: nil, now: 0,
            expected: .cacheOnlyMiss(key: DecisionCase.key)),
        DecisionCase(name: "fresh", policy: .cacheOnly, now: 30, expected: .serve(age: 30, ttl: 70)),
        DecisionCase(
            name: "expired: served anyway", policy: .cacheOnly, now: 150, expected: .serve(age: 150, ttl: -50)),
        DecisionCase(
            name: "a year old: served anyway", policy: .cacheOnly, now: 31_536_000,
            expected: .serve(age: 31_536_000, ttl: -31_535_900)),
        DecisionCase(
            name: "ttl, when given, is the lifetime reported", policy: .cacheOnly, extra: #""ttl": "60s""#, now: 150,
            expected: .serve(age: 150, ttl: -90)),
        DecisionCase(
            name: "client no-cache cannot reach the origin", policy: .cacheOnly, incoming: ["Cache-Control: no-cache"],
            now: 30, expected: .serve(age: 30, ttl: 70)),
        DecisionCase(
            name: "origin failing: irrelevant", policy: .cacheOnly, now: 150, failedAt: 145,
            expected: .serve(age: 150, ttl: -50)),
        DecisionCase(
            name: "Vary does not match: a miss", policy: .cacheOnly, incoming: ["Accept: text/html"],
            stored: DecisionCase.storedLines + ["Vary: Accept"], now: 30,
            expected: .cacheOnlyMiss(key: DecisionCase.key)),
        DecisionCase(
            name: "POST without key.body: a miss", policy: .cacheOnly, method: "POST", now: 30,
            expected: .cacheOnlyMiss(key: DecisionCase.key)),
        DecisionCase(
            name: "client's conditional request matches", policy: .cacheOnly, incoming: ["If-None-Match: \"v1\""],
            now: 30, expected: .serveNotModified(age: 30, ttl: 70)),
    ]

    @Test("standard: RFC 9111 decides, with the route's staleIfError, client refresh and back-off", arguments: standard)
    func standardPolicy(_ row: DecisionCase) {
        #expect(row.decide() == row.expected)
    }

    @Test("cache-first: served while younger than ttl, whatever the origin said", arguments: cacheFirst)
    func cacheFirstPolicy(_ row: DecisionCase) {
        #expect(row.decide() == row.expected)
    }

    @Test("network-first: always fetched; stands in within staleIfError when the origin fails", arguments: networkFirst)
    func networkFirstPolicy(_ row: DecisionCase) {
        #expect(row.decide() == row.expected)
    }

    @Test(
        "stale-while-revalidate: stale within ttl + maxStale, refreshed in the background",
        arguments: staleWhileRevalidate)
    func staleWhileRevalidatePolicy(_ row: DecisionCase) {
        #expect(row.decide() == row.expected)
    }

    @Test("network-only: never reads or writes the cache", arguments: networkOnly)
    func networkOnlyPolicy(_ row: DecisionCase) {
        #expect(row.decide() == row.expected)
    }

    @Test("cache-only: any stored entry, whatever its age; else 504 naming the key", arguments: cacheOnly)
    func cacheOnlyPolicy(_ row: DecisionCase) {
        #expect(row.decide() == row.expected)
    }

    @Test("a fetch's stand-in is allowed up to and including its last second, with its age and ttl then")
    func standInDeadline() {
        let stored = entry(response(200, DecisionCase.storedLines))
        let routeLifetime = FetchPlan(reason: .stale, staleIfErrorUntil: t0 + 300, lifetime: 60)
        #expect(routeLifetime.allowsStale(at: t0 + 300))
        #expect(!routeLifetime.allowsStale(at: t0 + 301))
        #expect(
            routeLifetime.standIn(stored, now: t0 + 300)
                == .serveStale(age: 300, ttl: -240, because: .error, refresh: false))
        #expect(routeLifetime.standIn(stored, now: t0 + 301) == nil)
        let originLifetime = FetchPlan(reason: .stale, staleIfErrorUntil: t0 + 300)
        #expect(
            originLifetime.standIn(stored, now: t0 + 120)
                == .serveStale(age: 120, ttl: -20, because: .error, refresh: false))
        #expect(!FetchPlan(reason: .stale).allowsStale(at: t0))
        #expect(FetchPlan(reason: .stale).standIn(stored, now: t0) == nil)
    }

    @Test("requests wait for another's fetch of their key on every policy but network-first, which always asks the origin")
    func sharesFetches() {
        let sharing = RoutePolicy.allCases.filter(\.sharesFetches)
        #expect(sharing == [.standard, .cacheFirst, .staleWhileRevalidate, .networkOnly, .cacheOnly])
    }
}
