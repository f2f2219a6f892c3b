import Foundation
import Testing

/// Which route a request gets: routes are tried in order and the first whose `match` holds decides (host glob, port,
/// path, methods, header presence); the rest get `defaults`, as the route named `default`. The access log line and
/// `/_larder/stats` name the route.
@Suite("Policy: route matching")
struct PolicyRouteMatchingTests {
    /// The `route=` of the access line for `method url`, once logged.
    static func loggedRoute(_ url: String, method: String = "GET", in larder: Daemon) async throws -> String? {
        let line = try await Poll.value("an access line for \(method) \(url)") {
            larder.accessLines.last { $0["url"] == url && $0["method"] == method }
        }
        return line["route"]
    }

    /// Routes that answer without the origin (`cache-only`), so any host may be asked: a miss is a 504 and the access
    /// line names the route that decided.
    @Test(
        "host patterns: exact, *.domain (sub-domains at any depth, not the domain), a glob within a label, case-insensitive",
        arguments: [
            ("http://api.example.test/x", "exact"),
            ("http://API.Example.Test/x", "exact"),
            ("http://a.example.test/x", "subdomains"),
            ("http://a.b.example.test/x", "subdomains"),
            ("http://example.test/x", "default"),
            ("http://cdn-7.assets.test/x", "label-glob"),
            ("http://cdn-7.eu.assets.test/x", "default"),
            ("http://api.example.test:8080/x", "port"),
        ]
    )
    func hosts(url: String, route: String) async throws {
        let larder = try await Daemon.start(
            config: PolicyConfig.routes(
                [
                    #"{"name": "port", "match": {"port": 8080}, "policy": "cache-only"}"#,
                    #"{"name": "exact", "match": {"host": "api.example.test"}, "policy": "cache-only"}"#,
                    #"{"name": "subdomains", "match": {"host": "*.example.test"}, "policy": "cache-only"}"#,
                    #"{"name": "label-glob", "match": {"host": ["nothing.test", "cdn-*.assets.test"]}, "policy": "cache-only"}"#,
                ],
                defaults: #"{"policy": "cache-only"}"#))
        let answer = try await Curl.get(url, via: larder)
        #expect(answer.status == 504)
        let logged = try await Self.loggedRoute(Self.loggedURL(url), in: larder)
        #expect(logged == route)
    }

    @Test("a host glob route applies its policy to that host only: localhost HITs, 127.0.0.1 follows the origin")
    func hostPolicy() async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)", cacheControl: "no-cache") }
        let larder = try await Daemon.start(
            config: PolicyConfig.routes([
                #"{"name": "local", "match": {"host": "local*"}, "policy": "cache-first", "ttl": "1h"}"#
            ]))
        let byName = "http://localhost:\(origin.port)/named"
        #expect(try await Curl.get(byName, via: larder).xCache == "MISS")
        #expect(try await Curl.get(byName, via: larder).xCache == "HIT")
        let byAddress = origin.url("/named")
        #expect(try await Curl.get(byAddress, via: larder).xCache == "MISS")
        #expect(try await Curl.get(byAddress, via: larder).xCache != "HIT")
        #expect(try await Self.loggedRoute(byName, in: larder) == "local")
        #expect(try await Self.loggedRoute(byAddress, in: larder) == "default")
    }

    @Test(
        "path patterns: exact, prefix, a glob within a segment, ** across segments; the query is not part of the path",
        arguments: [
            ("/v1/search?q=1", "exact"),
            ("/v1/search/more", "prefix"),
            ("/v1/", "prefix"),
            ("/v1", "default"),
            ("/v2/users/7/items", "segment-glob"),
            ("/v2/users/7/8/items", "default"),
            ("/pkg/a/b/-/a-1.0.tgz", "deep-glob"),
            ("/pkg/a/b/-/a-1.0.zip", "default"),
        ]
    )
    func paths(path: String, route: String) async throws {
        let origin = try PolicyOrigin { _ in .ok("x") }
        let larder = try await Daemon.start(
            config: PolicyConfig.routes([
                #"{"name": "exact", "match": {"path": "/v1/search"}, "policy": "network-only"}"#,
                #"{"name": "prefix", "match": {"path": "/v1/"}, "policy": "network-only"}"#,
                #"{"name": "segment-glob", "match": {"path": "/v2/*/*/items"}, "policy": "network-only"}"#,
                #"{"name": "deep-glob", "match": {"path": "/pkg/**/-/*.tgz"}, "policy": "network-only"}"#,
            ]))
        let url = origin.url(path)
        #expect(try await Curl.get(url, via: larder).status == 200)
        #expect(try await Self.loggedRoute(url, in: larder) == route)
    }

    @Test("methods: a route for POST takes POSTs only; GET also admits HEAD")
    func methods() async throws {
        let origin = try PolicyOrigin { request in .ok("\(request.method) \(request.sequence)") }
        let larder = try await Daemon.start(
            config: PolicyConfig.routes([
                #"{"name": "writes", "match": {"methods": ["POST", "PUT"]}, "policy": "network-only"}"#,
                #"{"name": "reads", "match": {"methods": ["GET"]}, "policy": "cache-first", "ttl": "1h"}"#,
            ]))
        let url = origin.url("/m")
        let post = try await Curl.run(["--data-binary", "x", url], via: larder)
        #expect(post.xCache == "BYPASS")
        #expect(try await Self.loggedRoute(url, method: "POST", in: larder) == "writes")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")
        #expect(try await Self.loggedRoute(url, method: "GET", in: larder) == "reads")
        let head = try await Curl.run(["-I", url], via: larder)
        #expect(head.xCache == "HIT")
        #expect(try await Self.loggedRoute(url, method: "HEAD", in: larder) == "reads")
        _ = try await Curl.run(["-X", "DELETE", url], via: larder)
        #expect(try await Self.loggedRoute(url, method: "DELETE", in: larder) == "default")
    }

    @Test("headers: a route that needs a header field takes only requests carrying it, whatever its value")
    func headerPresence() async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)", cacheControl: "max-age=600") }
        let larder = try await Daemon.start(
            config: PolicyConfig.routes([
                #"{"name": "keyed", "match": {"headers": ["X-Api-Key"]}, "policy": "network-only"}"#
            ]))
        let url = origin.url("/h")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")
        #expect(try await Curl.get(url, via: larder).xCache == "HIT")
        for value in ["secret", ""] {
            let keyed = try await Curl.get(url, via: larder, headers: [value.isEmpty ? "X-Api-Key;" : "x-api-key: \(value)"])
            #expect(keyed.xCache == "BYPASS", "X-Api-Key: \(value)")
        }
        #expect(origin.requests.count == 3)
    }

    @Test("the first route that matches decides, even when a later one matches more closely")
    func firstMatchWins() async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)") }
        let larder = try await Daemon.start(
            config: PolicyConfig.routes([
                #"{"name": "broad", "match": {"path": "/api/"}, "policy": "network-only"}"#,
                #"{"name": "narrow", "match": {"path": "/api/items", "host": "127.0.0.1"}, "policy": "cache-first", "ttl": "1h"}"#,
            ]))
        let url = origin.url("/api/items")
        #expect(try await Curl.get(url, via: larder).xCache == "BYPASS")
        #expect(try await Curl.get(url, via: larder).xCache == "BYPASS")
        #expect(try await Self.loggedRoute(url, in: larder) == "broad")
    }

    @Test("defaults apply to requests no route matches, and every route starts from them")
    func defaults() async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)", cacheControl: "max-age=0") }
        let larder = try await Daemon.start(
            config: PolicyConfig.routes(
                [#"{"name": "short", "match": {"path": "/short"}, "ttl": "1s"}"#],
                defaults: #"{"policy": "cache-first", "ttl": "1h", "staleIfError": "1h"}"#))
        let (other, short) = (origin.url("/other"), origin.url("/short"))
        #expect(try await Curl.get(other, via: larder).xCache == "MISS")
        let hit = try await Curl.get(other, via: larder)
        #expect(hit.xCache == "HIT")
        #expect(hit.cacheStatus?.ttl == 3600 - (hit.age ?? -1))
        #expect(try await Self.loggedRoute(other, in: larder) == "default")

        // "short" is cache-first with the defaults' staleIfError; only its ttl differs.
        #expect(try await Curl.get(short, via: larder).xCache == "MISS")
        try await PolicyCacheFirstTests.untilExpired(short, in: larder)
        try origin.goDown()
        #expect(try await Curl.get(short, via: larder).xCache == "STALE")
        #expect(try await Self.loggedRoute(short, in: larder) == "short")
    }

    @Test("/_larder/stats counts hits, misses and stale answers per route, and the access log names each route")
    func statsPerRoute() async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)") }
        let larder = try await Daemon.start(
            config: PolicyConfig.routes([
                #"{"name": "api", "match": {"path": "/api/"}, "policy": "cache-first", "ttl": "1h"}"#,
                #"{"name": "live", "match": {"path": "/live/"}, "policy": "network-only"}"#,
                #"{"name": "fallback", "match": {"path": "/fb/"}, "policy": "network-first", "staleIfError": "1h", "errorBackoff": "0s"}"#,
            ]))
        for path in ["/api/a", "/api/a", "/api/a", "/api/b", "/live/x", "/live/x", "/fb/y", "/other"] {
            _ = try await Curl.get(origin.url(path), via: larder)
        }
        origin.set(.failing(status: 503))
        #expect(try await Curl.get(origin.url("/fb/y"), via: larder).xCache == "STALE")

        let routes = try await CachePoll.value("nine answers in /_larder/stats") { () -> [String: [String: Int]]? in
            let routes = try await Self.routeStats(from: larder)
            return routes.values.reduce(0) { $0 + $1.values.reduce(0, +) } == 9 ? routes : nil
        }
        #expect(routes["api"]?["hit"] == 2)
        #expect(routes["api"]?["miss"] == 2)
        #expect(routes["live"]?["bypass"] == 2)
        #expect(routes["fallback"]?["miss"] == 1)
        #expect(routes["fallback"]?["stale"] == 1)
        #expect(routes["default"]?["miss"] == 1)

        let lines = larder.accessLines.filter { $0["url"]?.hasPrefix(origin.url("/")) == true }
        #expect(lines.count == 9)
        for line in lines {
            let path = String(line["url"]?.dropFirst(origin.url("").count) ?? "")
            let expected = ["/api/": "api", "/live/": "live", "/fb/": "fallback"].first { path.hasPrefix($0.key) }?.value
            #expect(line["route"] == (expected ?? "default"), "\(path)")
        }
    }

    /// The URL as Larder logs a request for `url`: scheme and host lowercased.
    static func loggedURL(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url }
        let rest = url[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        return url[..<schemeEnd.upperBound].lowercased() + rest[..<authorityEnd].lowercased() + rest[authorityEnd...]
    }

    /// Per route, the answers by cache status (`hit`, `miss`, `stale`, …) from `/_larder/stats`.
    static func routeStats(from larder: Daemon) async throws -> [String: [String: Int]] {
        let result = try await Curl.get("http://127.0.0.1:\(larder.port)/_larder/stats", via: nil)
        guard let root = try JSONSerialization.jsonObject(with: Data(result.body)) as? [String: Any],
            let routes = root["routes"] as? [String: [String: Any]]
        else { throw HarnessError.malformed("unexpected /_larder/stats: \(result.bodyText)") }
        let statuses: Set = ["hit", "miss", "expired", "revalidated", "stale", "bypass", "queued"]
        return routes.mapValues { counts in
            counts.compactMapValues { ($0 as? NSNumber)?.intValue }.filter { statuses.contains($0.key) }
        }
    }
}
