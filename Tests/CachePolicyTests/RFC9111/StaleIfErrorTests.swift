import CachePolicy
import HTTPWire
import Testing

@Suite("RFC 5861 §4 stale-if-error")
struct StaleIfErrorTests {
    /// Response Cache-Control, request Cache-Control, `now` offset (the entry was received at `t0`), allowed.
    static let cases: [(String, String, Int64, Bool)] = [
        ("max-age=100, stale-if-error=60", "", 150, true),
        ("max-age=100, stale-if-error=60", "", 160, true),
        ("max-age=100, stale-if-error=60", "", 161, false),
        ("max-age=100, stale-if-error=60", "", 50, true),
        ("max-age=100", "", 101, false),
        ("max-age=100", "stale-if-error=60", 150, true),
        ("max-age=100", "stale-if-error=60", 161, false),
        ("max-age=100, stale-if-error=600", "stale-if-error=10", 150, false),
        ("max-age=100, stale-if-error=10", "stale-if-error=600", 150, true),
        ("max-age=100, stale-if-error=60", "stale-if-error=bad", 150, true),
        ("max-age=100, stale-if-error=60", "no-cache", 150, true),
        ("max-age=100, stale-if-error=60, must-revalidate", "", 150, false),
        ("max-age=100, stale-if-error=60, must-revalidate", "stale-if-error=60", 150, false),
        ("max-age=100, stale-if-error=60, proxy-revalidate", "", 150, false),
        ("s-maxage=100, stale-if-error=60", "", 150, false),
        ("max-age=100, stale-if-error=60, no-cache", "", 150, false),
    ]

    @Test(
        "a stale response may answer an origin failure within stale-if-error, never past must-revalidate (RFC 5861 §4)",
        arguments: cases)
    func allowed(given: String, asked: String, now: Int64, allowed: Bool) {
        let stored = entry(response(200, ["Date: \(date(0))", "Cache-Control: \(given)"]))
        let requestCacheControl = CacheControl(requestHeaders: fields(asked.isEmpty ? [] : ["Cache-Control: \(asked)"]))
        #expect(
            RFC9111.staleIfErrorAllowed(entry: stored, now: t0 + now, requestCacheControl: requestCacheControl)
                == allowed)
    }

    @Test("stale-if-error measures staleness against the heuristic lifetime it is given (RFC 5861 §4, RFC 9111 §4.2.2)")
    func heuristicLifetime() {
        let stored = entry(
            response(200, ["Date: \(date(0))", "Last-Modified: \(date(-10000))", "Cache-Control: stale-if-error=60"]))
        let none = CacheControl()
        #expect(RFC9111.staleIfErrorAllowed(entry: stored, now: t0 + 1060, requestCacheControl: none))
        #expect(!RFC9111.staleIfErrorAllowed(entry: stored, now: t0 + 1061, requestCacheControl: none))
        #expect(
            !RFC9111.staleIfErrorAllowed(
                entry: stored, now: t0 + 1060, requestCacheControl: none, heuristicFreshnessCap: 100))
    }
}
