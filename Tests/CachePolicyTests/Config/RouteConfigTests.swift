import CachePolicy
import HTTPWire
import Testing

/// One row of a config message table: a config and one message its check must print, "path: reason".
struct MessageCase: Sendable, CustomTestStringConvertible {
    var json: String
    var message: String

    var testDescription: String { message }

    /// The problems, or the warnings when the config parses.
    func messages() -> (errors: [String], warnings: [String]) {
        switch parse(json) {
        case .success(let config): ([], config.warnings.map(\.description))
        case .failure(let error): (error.problems.map(\.description), [])
        }
    }
}

/// A config with one route made of `body` (a JSON object's members).
private func oneRoute(_ body: String) -> String {
    #"{"routes": [{"name": "r", "match": {"host": "h.test"}, \#(body)}]}"#
}

@Suite("Config: defaults, routes and queue")
struct RouteConfigTests {
    static let errors: [MessageCase] = [
        MessageCase(
            json: oneRoute(#""policy": "cache_first""#),
            message: #"$.routes[0].policy: "cache_first" is not one of standard, cache-first, network-first, "#
                + #"stale-while-revalidate, network-only, cache-only; did you mean "cache-first"?"#),
        MessageCase(
            json: #"{"defaults": {"policy": "fastest"}}"#,
            message: #"$.defaults.policy: "fastest" is not one of standard, cache-first, network-first, "#
                + "stale-while-revalidate, network-only, cache-only"),
        MessageCase(
            json: oneRoute(#""tll": "5m""#), message: #"$.routes[0].tll: unknown key; did you mean "ttl"?"#),
        MessageCase(
            json: oneRoute(#""key": {"query": {"sorted": true}}"#),
            message: #"$.routes[0].key.query.sorted: unknown key; did you mean "sort"?"#),
        MessageCase(
            json: oneRoute(#""storeIf": {"contenttype": ["text/"]}"#),
            message: #"$.routes[0].storeIf.contenttype: unknown key; did you mean "contentType"?"#),
        MessageCase(
            json: #"{"routes": [{"name": "r", "match": {"hosts": "h.test"}}]}"#,
            message: #"$.routes[0].match.hosts: unknown key; did you mean "host"?"#),
        MessageCase(
            json: #"{"defaults": {"storeIf": {"json": {"/a": {"typ": "object"}}}}}"#,
            message: #"$.defaults.storeIf.json["/a"].typ: unknown key; did you mean "type"?"#),
        MessageCase(
            json: #"{"queue": {"maxAttempt": 3}}"#,
            message: #"$.queue.maxAttempt: unknown key; did you mean "maxAttempts"?"#),
        MessageCase(
            json: oneRoute(#""policy": "cache-first""#),
            message: #"$.routes[0].ttl: required with policy "cache-first": how long a stored response is served "#
                + #"without asking the origin, e.g. "5m""#),
        MessageCase(
            json: #"{"defaults": {"policy": "stale-while-revalidate", "maxStale": "1h"}}"#,
            message: #"$.defaults.ttl: required with policy "stale-while-revalidate": how long a stored response is "#
                + #"served without asking the origin, e.g. "5m""#),
        MessageCase(
            json: oneRoute(#""policy": "stale-while-revalidate", "ttl": "1m""#),
            message: #"$.routes[0].maxStale: required with policy "stale-while-revalidate": how long past ttl a "#
                + #"stored response is still served while it is refreshed, e.g. "1h""#),
        MessageCase(
            json: oneRoute(#""ttl": "soon""#),
            message: #"$.routes[0].ttl: "soon" is not a duration; write e.g. "30s", "5m", "1h" or "7d""#),
        MessageCase(
            json: oneRoute(#""ttl": "1500ms""#),
            message: #"$.routes[0].ttl: must be whole seconds (cache times are kept in seconds); write e.g. "2s""#),
        MessageCase(
            json: oneRoute(#""timeout": "0s""#),
            message: "$.routes[0].timeout: must be more than 0; leave it out to use timeouts.read"),
        MessageCase(
            json: oneRoute(#""clientRefresh": "honour""#),
            message: #"$.routes[0].clientRefresh: "honour" is not one of honor, ignore; did you mean "honor"?"#),
        MessageCase(
            json: oneRoute(#""storeAuthorized": "yes""#),
            message: "$.routes[0].storeAuthorized: expected true or false, found a string"),
        MessageCase(
            json: #"{"routes": [{"match": {"host": "h.test"}}]}"#,
            message: #"$.routes[0].name: required: a name for the access log and /_larder/stats, such as "api""#),
        MessageCase(
            json: #"{"routes": [{"name": "a", "match": {"port": 80}}, {"name": "a", "match": {"port": 81}}]}"#,
            message: #"$.routes[1].name: "a" is already the name of routes[0]; names must be unique"#),
        MessageCase(
            json: #"{"routes": [{"name": "default", "match": {"port": 80}}]}"#,
            message: #"$.routes[0].name: "default" is the name of the defaults route; choose another"#),
        MessageCase(
            json: #"{"routes": [{"name": "my api", "match": {"port": 80}}]}"#,
            message: #"$.routes[0].name: may contain only letters, digits, "-", "_" and "." "#
                + "(it appears in logs and stats)"),
        MessageCase(
            json: #"{"routes": [{"name": "r"}]}"#,
            message: #"$.routes[0].match: required: which requests the route takes, e.g. {"host": "api.example.com"}"#),
        MessageCase(
            json: #"{"routes": [{"name": "r", "match": {}}]}"#,
            message: "$.routes[0].match: needs at least one of host, port, path, methods or headers; requests that no "
                + #"route matches get "defaults""#),
        MessageCase(json: #"{"routes": {"name": "r"}}"#, message: "$.routes: expected an array, found an object"),
        MessageCase(json: #"{"routes": ["r"]}"#, message: "$.routes[0]: expected an object, found a string"),
        MessageCase(
            json: #"{"routes": [{"name": "r", "match": {"host": "h.test:8080"}}]}"#,
            message: "$.routes[0].match.host: a host has no port; put it in match.port"),
        MessageCase(
            json: #"{"routes": [{"name": "r", "match": {"host": ["a.test", "h.test/v1"]}}]}"#,
            message: #"$.routes[0].match.host[1]: a host has no "/"; put paths in match.path"#),
        MessageCase(
            json: #"{"routes": [{"name": "r", "match": {"host": []}}]}"#,
            message: "$.routes[0].match.host: must not be empty; leave it out to match any"),
        MessageCase(
            json: #"{"routes": [{"name": "r", "match": {"port": 70000}}]}"#,
            message: "$.routes[0].match.port: 70000 is out of range (1...65535)"),
        MessageCase(
            json: #"{"routes": [{"name": "r", "match": {"path": "v1/"}}]}"#,
            message: #"$.routes[0].match.path: must start with "/", e.g. "/v1/" or "/v1/*""#),
        MessageCase(
            json: #"{"routes": [{"name": "r", "match": {"path": "/\#(String(repeating: "a", count: 124))*/"}}]}"#,
            message: #"$.routes[0].match.path: a pattern with "*" may be at most 126 characters; use a prefix "#
                + #"ending in "/""#),
        MessageCase(
            json: #"{"routes": [{"name": "r", "match": {"path": "/search?q=*"}}]}"#,
            message: "$.routes[0].match.path: matches the path only; the query is not part of it"),
        MessageCase(
            json: #"{"routes": [{"name": "r", "match": {"methods": ["get"]}}]}"#,
            message: #"$.routes[0].match.methods[0]: methods are case-sensitive; write "GET""#),
        MessageCase(
            json: #"{"routes": [{"name": "r", "match": {"methods": ["CONNECT"]}}]}"#,
            message: "$.routes[0].match.methods[0]: CONNECT opens a tunnel, which is never cached or routed"),
        MessageCase(
            json: #"{"routes": [{"name": "r", "match": {"headers": ["X Key"]}}]}"#,
            message: #"$.routes[0].match.headers[0]: "X Key" is not a header field name "#
                + "(letters, digits and !#$%&'*+-.^_`|~)"
        ),
        MessageCase(
            json: #"{"routes": [{"name": "r", "match": {"methods": ["GET", "HEAD"]}, "queue": true}]}"#,
            message: "$.routes[0].queue: queues unsafe requests (POST, PUT, PATCH, DELETE) for replay, and "
                + "match.methods lists only safe ones"),
        MessageCase(
            json: oneRoute(#""policy": "cache-first", "ttl": "1m", "key": {"body": true}"#),
            message: "$.routes[0].key.body: only POST, PUT and PATCH requests have a body to key on, and match.methods "
                + #"lists none of them; list them, e.g. "methods": ["GET", "POST"]"#),
        MessageCase(
            json: #"{"defaults": {"key": {"body": true}}}"#,
            message: "$.defaults.key.body: belongs on a route whose match.methods lists POST, PUT or PATCH, "
                + "not in defaults"),
        MessageCase(
            json: oneRoute(#""key": {"headers": ["Accept Language"]}"#),
            message: #"$.routes[0].key.headers[0]: "Accept Language" is not a header field name "#
                + "(letters, digits and !#$%&'*+-.^_`|~)"
        ),
        MessageCase(
            json: oneRoute(#""key": {"version": "v 2"}"#),
            message: #"$.routes[0].key.version: must be visible ASCII characters without spaces, such as "v2""#),
        MessageCase(
            json: oneRoute(#""key": {"query": {"ignore": ["utm_source=x"]}}"#),
            message: #"$.routes[0].key.query.ignore[0]: expected a parameter name or a glob such as "utm_*""#),
        MessageCase(
            json: oneRoute(#""storeIf": {"status": [200, 700]}"#),
            message: "$.routes[0].storeIf.status[1]: expected a final status code from 200 to 599"),
        MessageCase(
            json: oneRoute(#""storeIf": {"status": [304]}"#),
            message: "$.routes[0].storeIf.status[0]: 304 responses are never stored as such"),
        MessageCase(
            json: oneRoute(#""storeIf": {"status": []}"#),
            message: "$.routes[0].storeIf.status: lists no status, so nothing would be stored; "
                + "leave it out for the default"),
        MessageCase(
            json: oneRoute(#""storeIf": {"contentType": ["json"]}"#),
            message: #"$.routes[0].storeIf.contentType[0]: expected a media type such as "application/json" or a "#
                + #"prefix such as "text/""#),
        MessageCase(
            json: oneRoute(#""storeIf": {"json": {"code": 0}}"#),
            message: #"$.routes[0].storeIf.json["code"]: a JSON Pointer starts with "/", e.g. "/data/items/0" "#
                + #"("" is the whole body)"#
        ),
        MessageCase(
            json: oneRoute(#""storeIf": {"json": {"/a~b": 0}}"#),
            message: #"$.routes[0].storeIf.json["/a~b"]: "~" must be written "~0" (and "/" in a name "~1")"#),
        MessageCase(
            json: oneRoute(#""storeIf": {"json": {"/data": {"type": "map"}}}"#),
            message: #"$.routes[0].storeIf.json["/data"].type: "map" is not one of object, array, string, number, "#
                + "boolean, null"),
        MessageCase(
            json: oneRoute(#""storeIf": {"json": {"/data": {"type": "object", "present": true}}}"#),
            message: #"$.routes[0].storeIf.json["/data"]: expected exactly one of "type", "present" or "equals" "#
                + "(to compare with an object)"),
        MessageCase(
            json: oneRoute(#""storeIf": {"json": {"/data": {}}}"#),
            message: #"$.routes[0].storeIf.json["/data"]: expected exactly one of "type", "present" or "equals" "#
                + "(to compare with an object)"),
        MessageCase(
            json: oneRoute(#""storeIf": {"json": {"/data": {"present": "yes"}}}"#),
            message: #"$.routes[0].storeIf.json["/data"].present: expected true or false, found a string"#),
        MessageCase(
            json: #"{"queue": {"maxAttempts": 0}}"#, message: "$.queue.maxAttempts: 0 is out of range (1...1000)"),
        MessageCase(json: #"{"queue": {"maxAge": "0s"}}"#, message: "$.queue.maxAge: must be at least 1s"),
        MessageCase(json: #"{"queue": {"maxBodySize": 0}}"#, message: "$.queue.maxBodySize: must be more than 0 bytes"),
        MessageCase(
            json: #"{"queue": {"backoffBase": "1m", "backoffMax": "10s"}}"#,
            message: "$.queue.backoffMax: must be at least backoffBase"),
        MessageCase(
            json: #"{"tls": {"caFile": "certs/ca.pem"}}"#,
            message: "$.tls.caFile: use an absolute path to a PEM file of CA certificates"),
    ]

    @Test("a bad config is refused with the JSON path and a reason a person can act on", arguments: errors)
    func errorMessages(_ row: MessageCase) {
        let (errors, _) = row.messages()
        #expect(errors.contains(row.message), "got: \(errors)")
    }

    static let warnings: [MessageCase] = [
        MessageCase(
            json: oneRoute(#""ttl": "5m""#),
            message: #"$.routes[0].ttl: has no effect with policy "standard"; it applies to "cache-first", "#
                + #""stale-while-revalidate", "cache-only" (under "standard" the origin's headers decide; "#
                + #""cache-first" keeps responses for ttl)"#),
        MessageCase(
            json: oneRoute(#""policy": "cache-first", "ttl": "1m", "maxStale": "1h""#),
            message: #"$.routes[0].maxStale: has no effect with policy "cache-first"; it applies to "#
                + #""stale-while-revalidate""#),
        MessageCase(
            json: oneRoute(#""policy": "network-only", "storeIf": {"status": [200]}"#),
            message: #"$.routes[0].storeIf: has no effect with policy "network-only"; it applies to "standard", "#
                + #""cache-first", "network-first", "stale-while-revalidate""#),
        MessageCase(
            json: oneRoute(#""policy": "network-first""#),
            message: #"$.routes[0].staleIfError: not set, so "network-first" never answers from the cache; set how "#
                + #"old a stored response may be to answer when the origin fails, e.g. "1d""#),
        MessageCase(
            json: #"{"routes": [{"name": "a", "match": {"port": 80}}, {"name": "b", "match": {"port": 80}}]}"#,
            message: #"$.routes[1].match: never matches: route "a" has the same match and comes first"#),
    ]

    @Test("an option with no effect where it is written is a warning, not an error", arguments: warnings)
    func warningMessages(_ row: MessageCase) {
        let (errors, warnings) = row.messages()
        #expect(errors.isEmpty)
        #expect(warnings.contains(row.message), "got: \(warnings)")
    }

    @Test("every problem is reported at once")
    func allProblemsAtOnce() {
        let (errors, _) = MessageCase(
            json: #"{"routes": [{"name": "", "match": {"methods": ["get"]}, "policy": "cache-first", "tll": "1m"}]}"#,
            message: ""
        ).messages()
        #expect(errors.count == 4, "got: \(errors)")
    }

    @Test("a route starts from defaults; a key it writes replaces that one value; null restores the built-in value")
    func inheritance() {
        let routes = table(
            #"""
            {"name": "a", "match": {"port": 80}, "ttl": "2m", "key": {"query": {"ignore": ["x"]}}},
            {"name": "b", "match": {"port": 81}, "policy": "standard", "staleIfError": null, "key": null}
            """#,
            defaults: #"""
                {"policy": "cache-first", "ttl": "1m", "staleIfError": "1h", "errorBackoff": "30s",
                 "key": {"query": {"sort": true, "ignore": ["utm_*"]}, "headers": ["Accept"]}}
                """#)
        let a = routes.routes[0].options
        #expect(a.policy == .cacheFirst)
        #expect(a.ttlSeconds == 120)
        #expect(a.staleIfErrorSeconds == 3600)
        #expect(a.errorBackoffSeconds == 30)
        #expect(a.key.query.sort)
        #expect(a.key.query.ignore.map(\.text) == ["x"])
        #expect(a.key.headers == ["accept"])
        let b = routes.routes[1].options
        #expect(b.policy == .standard)
        #expect(b.staleIfErrorSeconds == nil)
        #expect(b.key == KeyOptions())
        #expect(routes.defaults.options.ttlSeconds == 60)
    }

    @Test("every option is read into the model")
    func everyOption() {
        let options = route(
            #"""
            {"name": "api", "match": {"host": "*.example.com", "port": 443, "path": "/v1/*", "methods": ["GET", "POST"],
              "headers": ["X-Api-Key"]},
             "policy": "cache-first", "ttl": "5m", "staleIfError": "1d", "maxStale": "1h", "timeout": "3s",
             "errorBackoff": "10s", "clientRefresh": "ignore", "storeAuthorized": true, "storeSetCookie": true,
             "key": {"query": {"sort": true, "ignore": ["utm_*", "_"], "only": ["q", "page"]},
                     "headers": ["Accept-Language"], "body": true, "version": "v2"},
             "storeIf": {"status": [200, 203], "contentType": ["application/json", "text/"],
                         "json": {"/code": 0, "/data": {"type": "object"}, "/items": {"present": true}}},
             "queue": true}
            """#
        ).options
        #expect(options.policy == .cacheFirst)
        #expect(options.ttlSeconds == 300)
        #expect(options.staleIfErrorSeconds == 86_400)
        #expect(options.maxStaleSeconds == 3600)
        #expect(options.timeoutMilliseconds == 3000)
        #expect(options.errorBackoffSeconds == 10)
        #expect(options.clientRefresh == .ignore)
        #expect(options.storeAuthorized && options.storeSetCookie && options.queue)
        #expect(options.key.query.only?.map(\.text) == ["q", "page"])
        #expect(options.key.query.ignore.map(\.text) == ["utm_*", "_"])
        #expect(options.key.headers == ["accept-language"])
        #expect(options.key.body)
        #expect(options.key.version == "v2")
        #expect(options.storeIf.statuses == [200, 203])
        #expect(options.storeIf.contentTypes == ["application/json", "text/"])
        #expect(
            options.storeIf.json == [
                JSONCheck(pointer: "/code", expectation: .equals(.number(0))),
                JSONCheck(pointer: "/data", expectation: .type(.object)),
                JSONCheck(pointer: "/items", expectation: .present(true)),
            ])
    }

    @Test("tls.caFile names the CA certificates https:// origins are verified against; by default, the system's")
    func tlsSection() throws {
        #expect(try Config.parse(Array(#"{"tls": {"caFile": "/etc/larder/ca.pem"}}"#.utf8)).tlsCAFile == "/etc/larder/ca.pem")
        #expect(try Config.parse(Array("{}".utf8)).tlsCAFile == nil)
    }

    @Test("the queue section")
    func queueSection() throws {
        let json =
            #"{"queue": {"maxBodySize": "1MB", "maxAttempts": 3, "maxAge": "2d", "backoffBase": "500ms", "#
            + #""backoffMax": "1m"}}"#
        let config = try Config.parse(Array(json.utf8))
        #expect(config.queue.maxBodySize == 1_000_000)
        #expect(config.queue.maxAttempts == 3)
        #expect(config.queue.maxAgeSeconds == 172_800)
        #expect(config.queue.backoffBaseMilliseconds == 500)
        #expect(config.queue.backoffMaxMilliseconds == 60_000)
    }
}
