import CachePolicy
import HTTPWire
import Testing

/// Builds the expected value of a parse.
private func directives(_ set: (inout CacheControl) -> Void) -> CacheControl {
    var value = CacheControl()
    set(&value)
    return value
}

@Suite("RFC 9111 §5.2 Cache-Control parsing")
struct CacheControlTests {
    static let parsing: [(String, CacheControl)] = [
        ("", CacheControl()),
        ("max-age=60", directives { $0.maxAge = 60 }),
        ("MAX-AGE=60", directives { $0.maxAge = 60 }),
        ("max-age=\"60\"", directives { $0.maxAge = 60 }),
        ("s-maxage=30", directives { $0.sMaxAge = 30 }),
        ("S-MaxAge=30", directives { $0.sMaxAge = 30 }),
        ("no-store", directives { $0.noStore = true }),
        ("No-Cache", directives { $0.noCache = true }),
        (
            "no-cache=\"Set-Cookie, X-Foo\"",
            directives {
                $0.noCache = true
                $0.noCacheFields = ["Set-Cookie", "X-Foo"]
            }
        ),
        (
            "no-cache=Set-Cookie",
            directives {
                $0.noCache = true
                $0.noCacheFields = ["Set-Cookie"]
            }
        ),
        ("private", directives { $0.isPrivate = true }),
        (
            "private=\"Set-Cookie\"",
            directives {
                $0.isPrivate = true
                $0.privateFields = ["Set-Cookie"]
            }
        ),
        ("public", directives { $0.isPublic = true }),
        ("must-revalidate", directives { $0.mustRevalidate = true }),
        ("proxy-revalidate", directives { $0.proxyRevalidate = true }),
        ("must-understand", directives { $0.mustUnderstand = true }),
        ("no-transform", directives { $0.noTransform = true }),
        ("immutable", directives { $0.immutable = true }),
        ("stale-while-revalidate=30", directives { $0.staleWhileRevalidate = 30 }),
        ("stale-if-error=600", directives { $0.staleIfError = 600 }),
        ("max-stale", directives { $0.maxStale = .any }),
        ("max-stale=10", directives { $0.maxStale = .seconds(10) }),
        ("min-fresh=5", directives { $0.minFresh = 5 }),
        ("only-if-cached", directives { $0.onlyIfCached = true }),
        (
            "public, max-age=60, s-maxage=30",
            directives {
                $0.isPublic = true
                $0.maxAge = 60
                $0.sMaxAge = 30
            }
        ),
        ("  ,  , max-age=5 ,,", directives { $0.maxAge = 5 }),
        (
            "max-age=60, x-ext=\"a, no-store\", must-revalidate",
            directives {
                $0.maxAge = 60
                $0.mustRevalidate = true
            }
        ),
        ("unknown-directive, other=1", CacheControl()),
    ]

    @Test(
        "directives are parsed with case-insensitive names and token or quoted-string arguments (§5.2)",
        arguments: parsing)
    func parsesDirectives(value: String, expected: CacheControl) {
        #expect(CacheControl(parsing: fields(["Cache-Control: \(value)"])) == expected)
    }

    static let edgeCases: [(String, CacheControl)] = [
        (
            "PUBLIC, Max-Age=60, NO-STORE",
            directives {
                $0.isPublic = true
                $0.maxAge = 60
                $0.noStore = true
            }
        ),
        (
            "max-age = 60 ,\tpublic\t",
            directives {
                $0.maxAge = 60
                $0.isPublic = true
            }
        ),
        ("max-age=\"6\\0\"", directives { $0.maxAge = 60 }),
        ("max-age=\"60\"junk", directives { $0.maxAge = 60 }),
        ("max-age=\"60", directives { $0.maxAge = 60 }),
        (
            "max-age=\"6,0\", public",
            directives {
                $0.malformed = ["max-age"]
                $0.isPublic = true
            }
        ),
        ("max-age=\"\"", directives { $0.malformed = ["max-age"] }),
        ("max-age=6\"0\"", directives { $0.malformed = ["max-age"] }),
        ("max-age==60", directives { $0.malformed = ["max-age"] }),
        ("max-age=60=1", directives { $0.malformed = ["max-age"] }),
        ("x-ext=\"a\\\", no-store\", private", directives { $0.isPrivate = true }),
        (
            "no-cache=\"A,, B ,\", no-cache=\"C\"",
            directives {
                $0.noCache = true
                $0.noCacheFields = ["A", "B", "C"]
            }
        ),
        (
            "private=\"X-\\\"Q\"",
            directives {
                $0.isPrivate = true
                $0.privateFields = ["X-\"Q"]
            }
        ),
        (
            "private=\"caf\u{E9}\", max-age=5",
            directives {
                $0.isPrivate = true
                $0.privateFields = ["caf\u{E9}"]
                $0.maxAge = 5
            }
        ),
        ("max-age=\u{661}\u{662}", directives { $0.malformed = ["max-age"] }),
        ("m\u{E1}x-age=60, n\u{F6}-store, public", directives { $0.isPublic = true }),
        ("max-age\u{301}=60", CacheControl()),
        ("maxage=60, max-agee=1, s-max-age=2", CacheControl()),
        ("=60, \"max-age=1\"", CacheControl()),
    ]

    @Test(
        "byte-level parsing: case, whitespace, quoting, escapes and non-ASCII bytes (§5.2, RFC 9110 §5.6.4)",
        arguments: edgeCases)
    func parsesEdgeCases(value: String, expected: CacheControl) {
        #expect(CacheControl(parsing: fields(["Cache-Control: \(value)"])) == expected)
    }

    static let invalid: [(String, CacheControl)] = [
        ("max-age=abc", directives { $0.malformed = ["max-age"] }),
        ("max-age=-1", directives { $0.malformed = ["max-age"] }),
        ("max-age=1.5", directives { $0.malformed = ["max-age"] }),
        ("max-age=", directives { $0.malformed = ["max-age"] }),
        ("max-age", directives { $0.malformed = ["max-age"] }),
        ("s-maxage=soon", directives { $0.malformed = ["s-maxage"] }),
        ("min-fresh=x", directives { $0.malformed = ["min-fresh"] }),
        ("max-stale=x", directives { $0.malformed = ["max-stale"] }),
        ("stale-while-revalidate", directives { $0.malformed = ["stale-while-revalidate"] }),
        ("stale-if-error=+5", directives { $0.malformed = ["stale-if-error"] }),
        (
            "max-age=abc, max-age=10",
            directives {
                $0.maxAge = 10
                $0.malformed = ["max-age"]
            }
        ),
    ]

    @Test("an invalid delta-seconds argument is ignored and remembered as malformed (§1.2.2)", arguments: invalid)
    func ignoresInvalidDeltaSeconds(value: String, expected: CacheControl) {
        #expect(CacheControl(parsing: fields(["Cache-Control: \(value)"])) == expected)
    }

    static let duplicates: [(String, CacheControl)] = [
        ("max-age=60, max-age=10", directives { $0.maxAge = 60 }),
        ("s-maxage=5, s-maxage=50", directives { $0.sMaxAge = 5 }),
        ("max-stale, max-stale=5", directives { $0.maxStale = .any }),
        ("max-stale=5, max-stale", directives { $0.maxStale = .seconds(5) }),
        ("no-store, no-store", directives { $0.noStore = true }),
        (
            "max-age=60, no-cache",
            directives {
                $0.maxAge = 60
                $0.noCache = true
            }
        ),
    ]

    @Test("for duplicate directives the first valid value wins and flags stay set (§4.2.1)", arguments: duplicates)
    func duplicatesFirstWins(value: String, expected: CacheControl) {
        #expect(CacheControl(parsing: fields(["Cache-Control: \(value)"])) == expected)
    }

    @Test("directives of every Cache-Control field line are combined (§5.2)")
    func combinesFieldLines() {
        let parsed = CacheControl(
            parsing: fields(["Cache-Control: max-age=60", "Content-Type: text/plain", "cache-control: no-cache"]))
        #expect(
            parsed
                == directives {
                    $0.maxAge = 60
                    $0.noCache = true
                })
    }

    static let pragma: [([String], Bool)] = [
        (["Pragma: no-cache"], true),
        (["Pragma: No-Cache"], true),
        (["Pragma: x-foo, no-cache"], true),
        (["Pragma: x-foo"], false),
        ([], false),
        (["Pragma: no-cache", "Cache-Control: max-age=10"], false),
        (["Pragma: no-cache", "Cache-Control: x-unknown"], true),
    ]

    @Test(
        "Pragma: no-cache is request no-cache only when no Cache-Control directive is understood (§5.4)",
        arguments: pragma)
    func pragmaNoCache(lines: [String], noCache: Bool) {
        #expect(CacheControl(requestHeaders: fields(lines)).noCache == noCache)
    }

    @Test("Pragma has no meaning in a response, so response parsing ignores it (§5.4)")
    func pragmaIgnoredInResponse() {
        #expect(CacheControl(parsing: fields(["Pragma: no-cache"])) == CacheControl())
    }

    static let deltaSeconds: [(String, Int64?)] = [
        ("0", 0),
        ("60", 60),
        ("2147483648", 2_147_483_648),
        ("2147483649", 2_147_483_648),
        ("99999999999999999999999999", 2_147_483_648),
        ("-1", nil),
        ("+1", nil),
        (" 1", nil),
        ("", nil),
        ("1e3", nil),
        ("0x10", nil),
    ]

    @Test("delta-seconds is 1*DIGIT, and values past 2^31 become 2^31 (§1.2.2)", arguments: deltaSeconds)
    func parsesDeltaSeconds(text: String, expected: Int64?) {
        #expect(DeltaSeconds.parse(text) == expected)
    }

    static let maxStale: [(MaxStale, Int64, Bool)] = [
        (.any, 0, true),
        (.any, 1_000_000, true),
        (.seconds(60), 0, true),
        (.seconds(60), 60, true),
        (.seconds(60), 61, false),
        (.seconds(0), 1, false),
    ]

    @Test(
        "max-stale accepts a response stale by no more than its value, or any without one (§5.2.1.2)",
        arguments: maxStale)
    func maxStaleAllows(value: MaxStale, staleness: Int64, allowed: Bool) {
        #expect(value.allows(staleness: staleness) == allowed)
    }

    static let forbidsStale: [(String, Bool)] = [
        ("max-age=60", false),
        ("max-age=60, must-revalidate", true),
        ("max-age=60, proxy-revalidate", true),
        ("s-maxage=60", true),
        ("s-maxage=bad", true),
        ("max-age=60, no-cache", true),
        ("max-age=60, stale-while-revalidate=10", false),
    ]

    @Test(
        "no-cache, must-revalidate, proxy-revalidate and s-maxage forbid serving stale (§4.2.4)",
        arguments: forbidsStale)
    func forbidsStaleDirectives(value: String, forbids: Bool) {
        #expect(CacheControl(parsing: fields(["Cache-Control: \(value)"])).forbidsStale == forbids)
    }
}
