import CachePolicy
import HTTPWire
import Testing

/// One row of a matching table: a route's `match`, a request, and whether it matches.
struct MatchCase: Sendable, CustomTestStringConvertible {
    var match: String
    var method = "GET"
    var url: String
    var headers: [String] = []
    var matches: Bool

    var testDescription: String { "\(match) \(method) \(url) → \(matches)" }

    func run() -> Bool {
        let route = route("{\"name\": \"r\", \"match\": \(match)}")
        return route.match.matches(request(method, headers), url: CachePolicyTests.url(url))
    }
}

@Suite("Route matching")
struct RouteMatchTests {
    static let hosts: [MatchCase] = [
        MatchCase(match: #"{"host": "example.com"}"#, url: "http://example.com/", matches: true),
        MatchCase(match: #"{"host": "example.com"}"#, url: "http://EXAMPLE.com/", matches: true),
        MatchCase(match: #"{"host": "Example.COM"}"#, url: "http://example.com/", matches: true),
        MatchCase(match: #"{"host": "example.com"}"#, url: "http://www.example.com/", matches: false),
        MatchCase(match: #"{"host": "example.com"}"#, url: "http://example.com.evil.test/", matches: false),
        MatchCase(match: #"{"host": "*.example.com"}"#, url: "http://api.example.com/", matches: true),
        MatchCase(match: #"{"host": "*.example.com"}"#, url: "http://a.b.example.com/", matches: true),
        MatchCase(match: #"{"host": "*.example.com"}"#, url: "http://example.com/", matches: false),
        MatchCase(match: #"{"host": "*.example.com"}"#, url: "http://badexample.com/", matches: false),
        MatchCase(match: #"{"host": "*.Example.com"}"#, url: "http://API.example.com/", matches: true),
        MatchCase(match: #"{"host": "api-*.example.com"}"#, url: "http://api-eu.example.com/", matches: true),
        MatchCase(match: #"{"host": "api-*.example.com"}"#, url: "http://api-eu.x.example.com/", matches: false),
        MatchCase(match: #"{"host": "*.cdn-*.example.com"}"#, url: "http://a.b.cdn-1.example.com/", matches: true),
        MatchCase(match: #"{"host": "*.cdn-*.example.com"}"#, url: "http://cdn-1.example.com/", matches: false),
        MatchCase(match: #"{"host": "*"}"#, url: "http://anything.test/", matches: true),
        MatchCase(match: #"{"host": ["a.test", "*.b.test"]}"#, url: "http://x.b.test/", matches: true),
        MatchCase(match: #"{"host": ["a.test", "*.b.test"]}"#, url: "http://b.test/", matches: false),
        MatchCase(match: #"{"host": "::1"}"#, url: "http://[::1]:8080/", matches: true),
        MatchCase(match: #"{"host": "127.0.0.1"}"#, url: "http://127.0.0.1:8080/", matches: true),
    ]

    @Test("hosts match exactly or by glob, case-insensitively; *.example.com is any sub-domain", arguments: hosts)
    func hostPatterns(_ row: MatchCase) {
        #expect(row.run() == row.matches)
    }

    static let ports: [MatchCase] = [
        MatchCase(match: #"{"port": 443}"#, url: "https://example.com/", matches: true),
        MatchCase(match: #"{"port": 443}"#, url: "http://example.com/", matches: false),
        MatchCase(match: #"{"port": 80}"#, url: "http://example.com/", matches: true),
        MatchCase(match: #"{"port": 8080}"#, url: "http://example.com:8080/", matches: true),
        MatchCase(match: #"{"port": 8080}"#, url: "http://example.com:8081/", matches: false),
        MatchCase(match: #"{"host": "example.com", "port": 8080}"#, url: "http://example.com/", matches: false),
    ]

    @Test("a port matches the URL's explicit or default port", arguments: ports)
    func portsMatch(_ row: MatchCase) {
        #expect(row.run() == row.matches)
    }

    static let paths: [MatchCase] = [
        MatchCase(match: #"{"path": "/a"}"#, url: "http://h.test/a", matches: true),
        MatchCase(match: #"{"path": "/a"}"#, url: "http://h.test/a?x=1", matches: true),
        MatchCase(match: #"{"path": "/a"}"#, url: "http://h.test/a/", matches: false),
        MatchCase(match: #"{"path": "/a"}"#, url: "http://h.test/ab", matches: false),
        MatchCase(match: #"{"path": "/a"}"#, url: "http://h.test/A", matches: false),
        MatchCase(match: #"{"path": "/v1/"}"#, url: "http://h.test/v1/", matches: true),
        MatchCase(match: #"{"path": "/v1/"}"#, url: "http://h.test/v1/a/b", matches: true),
        MatchCase(match: #"{"path": "/v1/"}"#, url: "http://h.test/v1", matches: false),
        MatchCase(match: #"{"path": "/v1/*"}"#, url: "http://h.test/v1/a/b/c", matches: true),
        MatchCase(match: #"{"path": "/v1/*"}"#, url: "http://h.test/v1/", matches: true),
        MatchCase(match: #"{"path": "/v1/*"}"#, url: "http://h.test/v2/a", matches: false),
        MatchCase(match: #"{"path": "/v1/*/items"}"#, url: "http://h.test/v1/42/items", matches: true),
        MatchCase(match: #"{"path": "/v1/*/items"}"#, url: "http://h.test/v1/4/2/items", matches: false),
        MatchCase(match: #"{"path": "/v1/*/items"}"#, url: "http://h.test/v1//items", matches: true),
        MatchCase(match: #"{"path": "/**/-/*.tgz"}"#, url: "http://h.test/lodash/-/lodash-4.17.21.tgz", matches: true),
        MatchCase(match: #"{"path": "/**/-/*.tgz"}"#, url: "http://h.test/@babel/core/-/core-7.0.0.tgz", matches: true),
        MatchCase(match: #"{"path": "/**/-/*.tgz"}"#, url: "http://h.test/lodash/-/x/lodash.tgz", matches: false),
        MatchCase(match: #"{"path": "/**/-/*.tgz"}"#, url: "http://h.test/lodash", matches: false),
        MatchCase(
            match: #"{"path": "/*/dists/"}"#, url: "http://h.test/debian/dists/bookworm/InRelease", matches: true),
        MatchCase(match: #"{"path": "/*/dists/"}"#, url: "http://h.test/debian/pool/main/a.deb", matches: false),
        MatchCase(match: #"{"path": "/*.js"}"#, url: "http://h.test/app.js", matches: true),
        MatchCase(match: #"{"path": "/*.js"}"#, url: "http://h.test/lib/app.js", matches: false),
        MatchCase(match: #"{"path": "/**.js"}"#, url: "http://h.test/lib/app.js", matches: true),
        MatchCase(match: #"{"path": ["/a", "/b/"]}"#, url: "http://h.test/b/c", matches: true),
        MatchCase(match: #"{"path": "/caf%C3%A9"}"#, url: "http://h.test/caf%C3%A9", matches: true),
        MatchCase(
            match: #"{"path": "/\#(String(repeating: "a", count: 123))*/"}"#,
            url: "http://h.test/\(String(repeating: "a", count: 125))/x/y", matches: true),
    ]

    @Test(
        "paths match exactly, by prefix (ending in /) or by glob (* in a segment, ** and a trailing * across)",
        arguments: paths)
    func pathForms(_ row: MatchCase) {
        #expect(row.run() == row.matches)
    }

    static let methodsAndHeaders: [MatchCase] = [
        MatchCase(match: #"{"methods": ["GET", "POST"]}"#, method: "POST", url: "http://h.test/", matches: true),
        MatchCase(match: #"{"methods": ["GET", "POST"]}"#, method: "PUT", url: "http://h.test/", matches: false),
        MatchCase(match: #"{"methods": ["GET"]}"#, method: "HEAD", url: "http://h.test/", matches: true),
        MatchCase(match: #"{"methods": ["POST"]}"#, method: "HEAD", url: "http://h.test/", matches: false),
        MatchCase(match: #"{"methods": ["GET"]}"#, method: "get", url: "http://h.test/", matches: false),
        MatchCase(
            match: #"{"headers": ["X-Api-Key"]}"#, url: "http://h.test/", headers: ["x-api-key: k"], matches: true),
        MatchCase(
            match: #"{"headers": ["X-Api-Key"]}"#, url: "http://h.test/", headers: ["X-Api-Key: "], matches: true),
        MatchCase(match: #"{"headers": ["X-Api-Key"]}"#, url: "http://h.test/", matches: false),
        MatchCase(
            match: #"{"headers": ["X-Api-Key", "Authorization"]}"#, url: "http://h.test/", headers: ["X-Api-Key: k"],
            matches: false),
        MatchCase(
            match: #"{"host": "h.test", "path": "/v1/", "methods": ["GET"], "headers": ["Accept"]}"#,
            url: "http://h.test/v1/x", headers: ["Accept: */*"], matches: true),
        MatchCase(
            match: #"{"host": "h.test", "path": "/v1/", "methods": ["GET"], "headers": ["Accept"]}"#,
            url: "http://h.test/v2/x", headers: ["Accept: */*"], matches: false),
    ]

    @Test(
        "methods match case-sensitively (GET admits HEAD); headers by presence; every condition must hold",
        arguments: methodsAndHeaders)
    func methodsAndHeaderPresence(_ row: MatchCase) {
        #expect(row.run() == row.matches)
    }

    @Test("routes are tried in order: the first match wins, and the rest get the defaults route")
    func firstMatchWins() {
        let routes = table(
            """
            {"name": "api-post", "match": {"host": "api.test", "methods": ["POST"]}, "policy": "network-only"},
            {"name": "api", "match": {"host": "api.test"}, "policy": "cache-first", "ttl": "1m"},
            {"name": "everything-api", "match": {"host": "*.test"}, "policy": "cache-only"}
            """,
            defaults: #"{"policy": "network-first", "staleIfError": "1h"}"#)
        func name(_ method: String, _ target: String) -> String {
            routes.route(for: request(method), url: url(target)).name
        }
        #expect(name("POST", "http://api.test/a") == "api-post")
        #expect(name("GET", "http://api.test/a") == "api")
        #expect(name("GET", "http://www.test/a") == "everything-api")
        #expect(name("GET", "http://other.example/a") == "default")
        let fallback = routes.route(for: request(), url: url("http://other.example/"))
        #expect(fallback.options.policy == .networkFirst)
        #expect(fallback.options.staleIfErrorSeconds == 3600)
        #expect(fallback.match == .any)
        #expect(routes.route(named: "api")?.options.ttlSeconds == 60)
        #expect(routes.route(named: "default") == fallback)
    }

    @Test("a glob answers a long path in one pass, without backtracking")
    func globIsLinear() {
        let pattern = PathPattern("/*a*a*a*a*a*a*a*a*a*a*b")!
        let path = "/" + String(repeating: "a", count: 8000)
        let clock = ContinuousClock()
        let elapsed = clock.measure { #expect(!pattern.matches(path)) }
        #expect(elapsed < .seconds(1))
    }
}
