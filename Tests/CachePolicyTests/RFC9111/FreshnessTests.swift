import CachePolicy
import HTTPWire
import Testing

/// One row of a freshness-lifetime table; the response was received at `t0`.
struct LifetimeCase: Sendable, CustomTestStringConvertible {
    var name: String
    var status = 200
    var lines: [String]
    var cap = StoreOptions.defaultHeuristicFreshnessCap
    var expected: FreshnessLifetime

    var testDescription: String { name }

    func lifetime() -> FreshnessLifetime {
        RFC9111.freshnessLifetime(of: response(status, lines), responseTime: t0, heuristicCap: cap)
    }
}

@Suite("RFC 9111 §4.2 freshness")
struct FreshnessTests {
    static let explicit: [LifetimeCase] = [
        LifetimeCase(
            name: "max-age", lines: ["Date: \(date(0))", "Cache-Control: max-age=60"],
            expected: FreshnessLifetime(seconds: 60, source: .maxAge)),
        LifetimeCase(
            name: "s-maxage over max-age", lines: ["Date: \(date(0))", "Cache-Control: max-age=60, s-maxage=30"],
            expected: FreshnessLifetime(seconds: 30, source: .sMaxAge)),
        LifetimeCase(
            name: "s-maxage over Expires",
            lines: ["Date: \(date(0))", "Expires: \(date(600))", "Cache-Control: s-maxage=30"],
            expected: FreshnessLifetime(seconds: 30, source: .sMaxAge)),
        LifetimeCase(
            name: "max-age over Expires",
            lines: ["Date: \(date(0))", "Expires: \(date(600))", "Cache-Control: max-age=60"],
            expected: FreshnessLifetime(seconds: 60, source: .maxAge)),
        LifetimeCase(
            name: "max-age=0", lines: ["Cache-Control: max-age=0"],
            expected: FreshnessLifetime(seconds: 0, source: .maxAge)),
        LifetimeCase(
            name: "Expires minus Date", lines: ["Date: \(date(0))", "Expires: \(date(600))"],
            expected: FreshnessLifetime(seconds: 600, source: .expires)),
        LifetimeCase(
            name: "Expires minus Date, not minus the receive time",
            lines: ["Date: \(date(-100))", "Expires: \(date(600))"],
            expected: FreshnessLifetime(seconds: 700, source: .expires)),
        LifetimeCase(
            name: "Expires without Date: minus the receive time", lines: ["Expires: \(date(600))"],
            expected: FreshnessLifetime(seconds: 600, source: .expires)),
        LifetimeCase(
            name: "Expires before Date", lines: ["Date: \(date(0))", "Expires: \(date(-10))"],
            expected: FreshnessLifetime(seconds: 0, source: .expires)),
        LifetimeCase(
            name: "two Expires: the first is used",
            lines: ["Date: \(date(0))", "Expires: \(date(100))", "Expires: \(date(900))"],
            expected: FreshnessLifetime(seconds: 100, source: .expires)),
        LifetimeCase(
            name: "explicit freshness of a status not heuristically cacheable", status: 302,
            lines: ["Cache-Control: max-age=60"], expected: FreshnessLifetime(seconds: 60, source: .maxAge)),
        LifetimeCase(
            name: "response Pragma changes nothing", lines: ["Pragma: no-cache", "Cache-Control: max-age=60"],
            expected: FreshnessLifetime(seconds: 60, source: .maxAge)),
    ]

    @Test("the lifetime is s-maxage, else max-age, else Expires minus Date (§4.2.1)", arguments: explicit)
    func explicitLifetime(_ row: LifetimeCase) {
        #expect(row.lifetime() == row.expected)
    }

    static let invalid: [LifetimeCase] = [
        LifetimeCase(
            name: "Expires: 0", lines: ["Date: \(date(0))", "Expires: 0"],
            expected: FreshnessLifetime(seconds: 0, source: .expires)),
        LifetimeCase(
            name: "Expires: tomorrow", lines: ["Date: \(date(0))", "Expires: tomorrow"],
            expected: FreshnessLifetime(seconds: 0, source: .expires)),
        LifetimeCase(
            name: "invalid max-age does not fall back to Expires",
            lines: ["Expires: \(date(600))", "Cache-Control: max-age=abc"],
            expected: FreshnessLifetime(seconds: 0, source: .maxAge)),
        LifetimeCase(
            name: "invalid s-maxage does not fall back to max-age", lines: ["Cache-Control: s-maxage=abc, max-age=60"],
            expected: FreshnessLifetime(seconds: 0, source: .sMaxAge)),
        LifetimeCase(
            name: "invalid max-age is not heuristic either",
            lines: ["Last-Modified: \(date(-10000))", "Cache-Control: max-age="],
            expected: FreshnessLifetime(seconds: 0, source: .maxAge)),
    ]

    @Test("invalid freshness information means already expired (§4.2.1, §5.3)", arguments: invalid)
    func invalidMeansExpired(_ row: LifetimeCase) {
        #expect(row.lifetime() == row.expected)
    }

    static let heuristic: [LifetimeCase] = [
        LifetimeCase(
            name: "10% of Date minus Last-Modified", lines: ["Date: \(date(0))", "Last-Modified: \(date(-10000))"],
            expected: FreshnessLifetime(seconds: 1000, source: .heuristic)),
        LifetimeCase(
            name: "measured from Date, not the receive time",
            lines: ["Date: \(date(-1000))", "Last-Modified: \(date(-11000))"],
            expected: FreshnessLifetime(seconds: 1000, source: .heuristic)),
        LifetimeCase(
            name: "without Date, from the receive time", lines: ["Last-Modified: \(date(-10000))"],
            expected: FreshnessLifetime(seconds: 1000, source: .heuristic)),
        LifetimeCase(
            name: "capped at a day by default", lines: ["Date: \(date(0))", "Last-Modified: \(date(-10_000_000))"],
            expected: FreshnessLifetime(seconds: 86400, source: .heuristic)),
        LifetimeCase(
            name: "capped by the configured cap", lines: ["Date: \(date(0))", "Last-Modified: \(date(-10000))"],
            cap: 300,
            expected: FreshnessLifetime(seconds: 300, source: .heuristic)),
        LifetimeCase(
            name: "404 is heuristically cacheable", status: 404,
            lines: ["Date: \(date(0))", "Last-Modified: \(date(-10000))"],
            expected: FreshnessLifetime(seconds: 1000, source: .heuristic)),
        LifetimeCase(
            name: "public allows heuristics on a 302", status: 302,
            lines: ["Date: \(date(0))", "Last-Modified: \(date(-10000))", "Cache-Control: public"],
            expected: FreshnessLifetime(seconds: 1000, source: .heuristic)),
        LifetimeCase(
            name: "not for a 302 without public", status: 302,
            lines: ["Date: \(date(0))", "Last-Modified: \(date(-10000))"],
            expected: FreshnessLifetime(seconds: 0, source: .none)),
        LifetimeCase(
            name: "not when max-age is given", lines: ["Last-Modified: \(date(-10000))", "Cache-Control: max-age=5"],
            expected: FreshnessLifetime(seconds: 5, source: .maxAge)),
        LifetimeCase(
            name: "not when Expires is given",
            lines: ["Date: \(date(0))", "Last-Modified: \(date(-10000))", "Expires: \(date(50))"],
            expected: FreshnessLifetime(seconds: 50, source: .expires)),
        LifetimeCase(
            name: "Last-Modified in the future", lines: ["Date: \(date(0))", "Last-Modified: \(date(100))"],
            expected: FreshnessLifetime(seconds: 0, source: .heuristic)),
        LifetimeCase(
            name: "no Last-Modified", lines: ["Date: \(date(0))"],
            expected: FreshnessLifetime(seconds: 0, source: .heuristic)),
        LifetimeCase(
            name: "invalid Last-Modified", lines: ["Date: \(date(0))", "Last-Modified: long ago"],
            expected: FreshnessLifetime(seconds: 0, source: .heuristic)),
    ]

    @Test(
        "heuristic freshness is 10% of the time since Last-Modified, capped, only where allowed (§4.2.2)",
        arguments: heuristic)
    func heuristicLifetime(_ row: LifetimeCase) {
        #expect(row.lifetime() == row.expected)
    }

    static let sources: [(FreshnessSource, Bool)] = [
        (.sMaxAge, true), (.maxAge, true), (.expires, true), (.heuristic, false), (.none, false),
    ]

    @Test("s-maxage, max-age and Expires are explicit; heuristics are not (§4.2.1, §4.2.2)", arguments: sources)
    func explicitSources(source: FreshnessSource, explicit: Bool) {
        #expect(source.isExplicit == explicit)
    }

    static let isFresh: [(Int64, Bool)] = [(0, true), (59, true), (60, false), (61, false), (-30, true)]

    @Test("a response is fresh while its lifetime exceeds its current age (§4.2)", arguments: isFresh)
    func freshWhileLifetimeExceedsAge(now: Int64, fresh: Bool) {
        let stored = response(200, ["Date: \(date(0))", "Cache-Control: max-age=60"])
        #expect(RFC9111.isFresh(stored, times: StoredTimes(requestTime: t0, responseTime: t0), now: t0 + now) == fresh)
    }

    @Test("isFresh uses the heuristic cap it is given (§4.2.2)")
    func isFreshHeuristicCap() {
        let stored = response(200, ["Date: \(date(0))", "Last-Modified: \(date(-10000))"])
        let times = StoredTimes(requestTime: t0, responseTime: t0)
        #expect(RFC9111.isFresh(stored, times: times, now: t0 + 500))
        #expect(!RFC9111.isFresh(stored, times: times, now: t0 + 500, heuristicCap: 100))
    }
}
