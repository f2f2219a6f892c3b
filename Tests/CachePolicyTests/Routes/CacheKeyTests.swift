import CachePolicy
import HTTPWire
import Testing

/// One row of a key table: a route's `key` options (and any other route options), a request, and the key.
struct KeyCase: Sendable, CustomTestStringConvertible {
    var name: String
    var options = ""
    var method = "GET"
    var url = "http://Example.test:80/a?b=2&a=1"
    var headers: [String] = []
    var bodyDigest: String?
    var expected: String

    var testDescription: String { name }

    func derive() -> String {
        let route = route(
            """
            {"name": "r", "match": {"host": "example.test", "methods": ["GET", "POST"]}, "policy": "cache-first",
             "ttl": "1m"\(options.isEmpty ? "" : ", " + options)}
            """)
        return CacheKey.derive(
            method: method, url: CachePolicyTests.url(url), request: request(method, headers), route: route,
            bodyDigest: bodyDigest, credentialDigest: { "digest(\($0))" })
    }
}

@Suite("Cache keys")
struct CacheKeyTests {
    static let defaults: [KeyCase] = [
        KeyCase(name: "method and normalised URL", expected: "GET http://example.test/a?b=2&a=1"),
        KeyCase(name: "HEAD looks up the stored GET", method: "HEAD", expected: "GET http://example.test/a?b=2&a=1"),
        KeyCase(
            name: "the same as the RFC 9111 primary key", url: "HTTPS://EXAMPLE.test:443",
            expected: CacheKey.primary(method: "GET", url: url("https://example.test/"))),
        KeyCase(
            name: "an empty query is kept as sent", url: "http://example.test/a?",
            expected: "GET http://example.test/a?"),
        KeyCase(
            name: "headers not named do not join", headers: ["Accept-Language: de", "Authorization: Bearer x"],
            expected: "GET http://example.test/a?b=2&a=1"),
    ]

    static let query: [KeyCase] = [
        KeyCase(
            name: "sort: parameter order does not matter", options: #""key": {"query": {"sort": true}}"#,
            expected: "GET http://example.test/a?a=1&b=2"),
        KeyCase(
            name: "sort is stable: repeats of one name keep their order", options: #""key": {"query": {"sort": true}}"#,
            url: "http://example.test/a?b=2&a=9&b=1&a=3", expected: "GET http://example.test/a?a=9&a=3&b=2&b=1"),
        KeyCase(
            name: "ignore by name and glob", options: #""key": {"query": {"ignore": ["utm_*", "_"]}}"#,
            url: "http://example.test/a?q=x&utm_source=n&_=171&utm_=1&__=2",
            expected: "GET http://example.test/a?q=x&__=2"),
        KeyCase(
            name: "ignoring every parameter drops the \"?\"", options: #""key": {"query": {"ignore": ["*"]}}"#,
            expected: "GET http://example.test/a"),
        KeyCase(
            name: "only: an allowlist", options: #""key": {"query": {"only": ["q", "page"]}}"#,
            url: "http://example.test/s?page=2&session=abc&q=cats",
            expected: "GET http://example.test/s?page=2&q=cats"),
        KeyCase(
            name: "only, then ignore, then sort",
            options: #""key": {"query": {"only": ["p*"], "ignore": ["px"], "sort": true}}"#,
            url: "http://example.test/s?pb=2&px=1&q=3&pa=1", expected: "GET http://example.test/s?pa=1&pb=2"),
        KeyCase(
            name: "names compare as sent, case-sensitively", options: #""key": {"query": {"ignore": ["utm_*"]}}"#,
            url: "http://example.test/a?UTM_source=1&utm%5Fsource=2",
            expected: "GET http://example.test/a?UTM_source=1&utm%5Fsource=2"),
        KeyCase(
            name: "a parameter without a value, and empty ones", options: #""key": {"query": {"sort": true}}"#,
            url: "http://example.test/a?z&&a=", expected: "GET http://example.test/a?a=&z"),
    ]

    static let headers: [KeyCase] = [
        KeyCase(
            name: "named header values join, quoted", options: #""key": {"headers": ["Accept-Language"]}"#,
            headers: ["accept-language: de, en;q=0.5"],
            expected: #"GET http://example.test/a?b=2&a=1 accept-language="de, en;q=0.5""#),
        KeyCase(
            name: "an absent header joins as its bare name", options: #""key": {"headers": ["Accept-Language"]}"#,
            expected: "GET http://example.test/a?b=2&a=1 accept-language"),
        KeyCase(
            name: "an empty value is not an absent one", options: #""key": {"headers": ["X-Tenant"]}"#,
            headers: ["X-Tenant: "], expected: #"GET http://example.test/a?b=2&a=1 x-tenant="""#),
        KeyCase(
            name: "repeated lines join with \", \"", options: #""key": {"headers": ["Accept"]}"#,
            headers: ["Accept: a", "Accept: b"], expected: #"GET http://example.test/a?b=2&a=1 accept="a, b""#),
        KeyCase(
            name: "quotes and backslashes are escaped", options: #""key": {"headers": ["X-A", "X-B"]}"#,
            headers: [#"X-A: x" x-b="y"#], expected: #"GET http://example.test/a?b=2&a=1 x-a="x\" x-b=\"y" x-b"#),
        KeyCase(
            name: "in config order", options: #""key": {"headers": ["X-B", "X-A"]}"#, headers: ["X-A: 1", "X-B: 2"],
            expected: #"GET http://example.test/a?b=2&a=1 x-b="2" x-a="1""#),
        KeyCase(
            name: "Authorization and Cookie join only as digests",
            options: #""key": {"headers": ["Authorization", "Cookie"]}"#,
            headers: ["Authorization: Bearer secret", "Cookie: a=1", "Cookie: b=2"],
            expected: "GET http://example.test/a?b=2&a=1 authorization=digest(Bearer secret) cookie=digest(a=1, b=2)"),
    ]

    static let credentials: [KeyCase] = [
        KeyCase(
            name: "storeAuthorized keys by a digest of the credentials", options: #""storeAuthorized": true"#,
            headers: ["Authorization: Bearer alice"],
            expected: "GET http://example.test/a?b=2&a=1 authorization=digest(Bearer alice)"),
        KeyCase(
            name: "storeAuthorized without credentials: the plain key", options: #""storeAuthorized": true"#,
            expected: "GET http://example.test/a?b=2&a=1"),
        KeyCase(
            name: "storeAuthorized and key.headers name it once",
            options: #""storeAuthorized": true, "key": {"headers": ["authorization"]}"#, headers: ["Authorization: x"],
            expected: "GET http://example.test/a?b=2&a=1 authorization=digest(x)"),
    ]

    static let bodyAndVersion: [KeyCase] = [
        KeyCase(
            name: "key.body: the body digest joins", options: #""key": {"body": true}"#, method: "POST",
            bodyDigest: "e3b0c442", expected: "POST http://example.test/a?b=2&a=1 body=e3b0c442"),
        KeyCase(
            name: "key.body without a body: nothing joins", options: #""key": {"body": true}"#,
            expected: "GET http://example.test/a?b=2&a=1"),
        KeyCase(
            name: "a body digest without key.body is not used", method: "POST", bodyDigest: "e3b0c442",
            expected: "POST http://example.test/a?b=2&a=1"),
        KeyCase(
            name: "key.version prefixes the key", options: #""key": {"version": "v2"}"#,
            expected: "v2 GET http://example.test/a?b=2&a=1"),
        KeyCase(
            name: "every option at once",
            options: """
                "storeAuthorized": true, "key": {"version": "v3", "query": {"sort": true, "ignore": ["utm_*"]},
                "headers": ["Accept"], "body": true}
                """,
            method: "POST", url: "http://example.test/q?z=1&utm_x=2&a=3",
            headers: ["Accept: application/json", "Authorization: Basic Ym9i"], bodyDigest: "abc",
            expected: #"v3 POST http://example.test/q?a=3&z=1 accept="application/json" "#
                + "authorization=digest(Basic Ym9i) body=abc"
        ),
    ]

    @Test("by default a key is the method and the normalised URL", arguments: defaults)
    func defaultKey(_ row: KeyCase) {
        #expect(row.derive() == row.expected)
    }

    @Test("key.query sorts, ignores and allows parameters", arguments: query)
    func queryOptions(_ row: KeyCase) {
        #expect(row.derive() == row.expected)
    }

    @Test("key.headers join their values; credentials only as digests", arguments: headers)
    func headerOptions(_ row: KeyCase) {
        #expect(row.derive() == row.expected)
    }

    @Test("a route storing authorized responses keys them by their credentials", arguments: credentials)
    func credentialKeys(_ row: KeyCase) {
        #expect(row.derive() == row.expected)
    }

    @Test("key.body and key.version", arguments: bodyAndVersion)
    func bodyAndVersionOptions(_ row: KeyCase) {
        #expect(row.derive() == row.expected)
    }

    @Test("two users with different credentials never share a key")
    func usersNeverShare() {
        let alice = KeyCase(name: "", options: #""storeAuthorized": true"#, headers: ["Authorization: a"], expected: "")
        var bob = alice
        bob.headers = ["Authorization: b"]
        #expect(alice.derive() != bob.derive())
    }

    @Test("a route asks for the body digest only for the body methods it caches")
    func needsBodyDigest() {
        let bodyRoute = route(
            #"{"name": "r", "match": {"methods": ["GET", "POST"]}, "policy": "cache-first", "ttl": "1m", "#
                + #""key": {"body": true}}"#
        )
        #expect(bodyRoute.needsBodyDigest(method: "POST"))
        #expect(!bodyRoute.needsBodyDigest(method: "GET"))
        #expect(!bodyRoute.needsBodyDigest(method: "PUT"))
        let plain = route(
            #"{"name": "r", "match": {"methods": ["GET", "POST"]}, "policy": "cache-first", "ttl": "1m"}"#)
        #expect(!plain.needsBodyDigest(method: "POST"))
    }
}
