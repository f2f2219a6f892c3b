import CachePolicy
import HTTPWire
import Testing

/// One row of a route storability table: route options, an exchange, and the decision.
struct RouteStoreCase: Sendable, CustomTestStringConvertible {
    var name: String
    var options = #""policy": "cache-first", "ttl": "1m""#
    var method = "GET"
    var requestLines: [String] = []
    var status = 200
    var responseLines: [String] = []
    var expected: StoreDecision

    var testDescription: String { name }

    func decide() -> StoreDecision {
        let route = route(#"{"name": "r", "match": {"methods": ["GET", "POST"]}, \#(options)}"#)
        return route.storability(
            request: request(method, requestLines), response: response(status, responseLines), maxObjectSize: 1000)
    }
}

/// One row of a body check table.
struct BodyCase: Sendable, CustomTestStringConvertible {
    var json: String
    var body: String
    var accepted: Bool

    var testDescription: String { "\(json) on \(body)" }

    func run() -> Bool {
        let route = route(#"{"name": "r", "match": {"port": 80}, "storeIf": {"json": \#(json)}}"#)
        return route.options.storeIf.acceptsBody(Array(body.utf8))
    }
}

@Suite("Route storability and storeIf")
struct StoreConditionsTests {
    static let routePolicies: [RouteStoreCase] = [
        RouteStoreCase(name: "cache-first stores without any freshness", expected: .store),
        RouteStoreCase(
            name: "cache-first ignores max-age=0 and no-cache", responseLines: ["Cache-Control: max-age=0, no-cache"],
            expected: .store),
        RouteStoreCase(
            name: "but refuses no-store", responseLines: ["Cache-Control: no-store"], expected: .skip(because: .noStore)
        ),
        RouteStoreCase(
            name: "and private", responseLines: ["Cache-Control: private"], expected: .skip(because: .privateResponse)),
        RouteStoreCase(
            name: "and the client's no-store", requestLines: ["Cache-Control: no-store"],
            expected: .skip(because: .noStoreRequest)),
        RouteStoreCase(
            name: "and Authorization", requestLines: ["Authorization: Bearer x"],
            expected: .skip(because: .authorization)),
        RouteStoreCase(
            name: "unless the route stores authorized responses",
            options: #""policy": "cache-first", "ttl": "1m", "storeAuthorized": true"#,
            requestLines: ["Authorization: Bearer x"], expected: .store),
        RouteStoreCase(
            name: "or the response is public (RFC 9111 §3.5)", requestLines: ["Authorization: Bearer x"],
            responseLines: ["Cache-Control: public"], expected: .store),
        RouteStoreCase(
            name: "and Set-Cookie", responseLines: ["Set-Cookie: a=1"], expected: .skip(because: .setCookie)),
        RouteStoreCase(
            name: "unless the route stores them",
            options: #""policy": "cache-first", "ttl": "1m", "storeSetCookie": true"#,
            responseLines: ["Set-Cookie: a=1"], expected: .store),
        RouteStoreCase(name: "Vary: *", responseLines: ["Vary: *"], expected: .skip(because: .varyStar)),
        RouteStoreCase(name: "a 206", status: 206, expected: .skip(because: .partial)),
        RouteStoreCase(name: "a 304", status: 304, expected: .skip(because: .status)),
        RouteStoreCase(name: "only 200 by default: 404", status: 404, expected: .skip(because: .storeIf)),
        RouteStoreCase(name: "only 200 by default: 500", status: 500, expected: .skip(because: .storeIf)),
        RouteStoreCase(
            name: "storeIf.status", options: #""policy": "network-first", "storeIf": {"status": [200, 404]}"#,
            status: 404, expected: .store),
        RouteStoreCase(
            name: "storeIf.status leaves 200 out", options: #""policy": "network-first", "storeIf": {"status": [203]}"#,
            expected: .skip(because: .storeIf)),
        RouteStoreCase(
            name: "storeIf.contentType: type and subtype, parameters ignored",
            options: #""policy": "stale-while-revalidate", "ttl": "1m", "maxStale": "1m", "#
                + #""storeIf": {"contentType": ["application/json"]}"#,
            responseLines: ["Content-Type: Application/JSON; charset=utf-8"], expected: .store),
        RouteStoreCase(
            name: "storeIf.contentType: another type",
            options: #""policy": "cache-first", "ttl": "1m", "storeIf": {"contentType": ["application/json"]}"#,
            responseLines: ["Content-Type: text/html"], expected: .skip(because: .storeIf)),
        RouteStoreCase(
            name: "storeIf.contentType: a type prefix",
            options: #""policy": "cache-first", "ttl": "1m", "storeIf": {"contentType": ["text/"]}"#,
            responseLines: ["Content-Type: text/html"], expected: .store),
        RouteStoreCase(
            name: "storeIf.contentType: a type range",
            options: #""policy": "cache-first", "ttl": "1m", "storeIf": {"contentType": ["image/*"]}"#,
            responseLines: ["Content-Type: image/png"], expected: .store),
        RouteStoreCase(
            name: "storeIf.contentType: no Content-Type",
            options: #""policy": "cache-first", "ttl": "1m", "storeIf": {"contentType": ["text/"]}"#,
            expected: .skip(because: .storeIf)),
        RouteStoreCase(
            name: "larger than the object limit", responseLines: ["Content-Length: 1001"],
            expected: .skip(because: .tooLarge(bytes: 1001))),
        RouteStoreCase(name: "HEAD is never stored", method: "HEAD", expected: .skip(because: .method)),
        RouteStoreCase(name: "POST without key.body", method: "POST", expected: .skip(because: .method)),
        RouteStoreCase(
            name: "POST with key.body", options: #""policy": "cache-first", "ttl": "1m", "key": {"body": true}"#,
            method: "POST", expected: .store),
        RouteStoreCase(
            name: "network-only never stores", options: #""policy": "network-only""#,
            expected: .skip(because: .notCacheable)),
        RouteStoreCase(
            name: "cache-only never stores", options: #""policy": "cache-only""#,
            expected: .skip(because: .notCacheable)),
    ]

    static let standard: [RouteStoreCase] = [
        RouteStoreCase(
            name: "standard follows RFC 9111: no freshness, status 201", options: #""policy": "standard""#, status: 201,
            expected: .skip(because: .notCacheable)),
        RouteStoreCase(
            name: "standard: a heuristically cacheable 404 is stored", options: #""policy": "standard""#, status: 404,
            expected: .store),
        RouteStoreCase(
            name: "standard: storeIf.status narrows it",
            options: #""policy": "standard", "storeIf": {"status": [200]}"#,
            status: 404, expected: .skip(because: .storeIf)),
        RouteStoreCase(
            name: "standard: storeAuthorized overrides §3.5",
            options: #""policy": "standard", "storeAuthorized": true"#,
            requestLines: ["Authorization: x"], responseLines: ["Cache-Control: max-age=60"], expected: .store),
        RouteStoreCase(
            name: "standard: no-store", options: #""policy": "standard""#, responseLines: ["Cache-Control: no-store"],
            expected: .skip(because: .noStore)),
    ]

    @Test(
        "the non-standard policies ignore freshness but keep RFC 9111's refusals, then storeIf",
        arguments: routePolicies)
    func routePolicyStorability(_ row: RouteStoreCase) {
        #expect(row.decide() == row.expected)
    }

    @Test("standard: RFC 9111 §3 first, then storeIf", arguments: standard)
    func standardStorability(_ row: RouteStoreCase) {
        #expect(row.decide() == row.expected)
    }

    static let bodies: [BodyCase] = [
        BodyCase(json: #"{"/code": 0}"#, body: #"{"code": 0}"#, accepted: true),
        BodyCase(json: #"{"/code": 0}"#, body: #"{"code": 0.0}"#, accepted: true),
        BodyCase(json: #"{"/code": 0}"#, body: #"{"code": 1}"#, accepted: false),
        BodyCase(json: #"{"/code": 0}"#, body: #"{"code": "0"}"#, accepted: false),
        BodyCase(json: #"{"/code": 0}"#, body: #"{"code": false}"#, accepted: false),
        BodyCase(json: #"{"/code": 0}"#, body: #"{}"#, accepted: false),
        BodyCase(json: #"{"/ok": true}"#, body: #"{"ok": true}"#, accepted: true),
        BodyCase(json: #"{"/ok": true}"#, body: #"{"ok": 1}"#, accepted: false),
        BodyCase(json: #"{"/status": "ok"}"#, body: #"{"status": "ok"}"#, accepted: true),
        BodyCase(json: #"{"/error": null}"#, body: #"{"error": null}"#, accepted: true),
        BodyCase(json: #"{"/error": null}"#, body: #"{}"#, accepted: false),
        BodyCase(json: #"{"/tags": ["a", "b"]}"#, body: #"{"tags": ["a", "b"]}"#, accepted: true),
        BodyCase(json: #"{"/meta": {"equals": {"v": 1}}}"#, body: #"{"meta": {"v": 1}}"#, accepted: true),
        BodyCase(json: #"{"/meta": {"equals": {"v": 1}}}"#, body: #"{"meta": {"v": 1, "w": 2}}"#, accepted: false),
        BodyCase(json: #"{"/data": {"type": "object"}}"#, body: #"{"data": {}}"#, accepted: true),
        BodyCase(json: #"{"/data": {"type": "object"}}"#, body: #"{"data": []}"#, accepted: false),
        BodyCase(json: #"{"/data": {"type": "array"}}"#, body: #"{"data": []}"#, accepted: true),
        BodyCase(json: #"{"/data": {"type": "string"}}"#, body: #"{"data": "x"}"#, accepted: true),
        BodyCase(json: #"{"/data": {"type": "number"}}"#, body: #"{"data": 1.5}"#, accepted: true),
        BodyCase(json: #"{"/data": {"type": "boolean"}}"#, body: #"{"data": false}"#, accepted: true),
        BodyCase(json: #"{"/data": {"type": "null"}}"#, body: #"{"data": null}"#, accepted: true),
        BodyCase(json: #"{"/data": {"type": "null"}}"#, body: #"{}"#, accepted: false),
        BodyCase(json: #"{"/items": {"present": true}}"#, body: #"{"items": null}"#, accepted: true),
        BodyCase(json: #"{"/items": {"present": true}}"#, body: #"{"other": 1}"#, accepted: false),
        BodyCase(json: #"{"/error": {"present": false}}"#, body: #"{"data": 1}"#, accepted: true),
        BodyCase(json: #"{"/error": {"present": false}}"#, body: #"{"error": "x"}"#, accepted: false),
        BodyCase(json: #"{"/items/0/id": 7}"#, body: #"{"items": [{"id": 7}]}"#, accepted: true),
        BodyCase(json: #"{"/a~1b/c~0d": 1}"#, body: #"{"a/b": {"c~d": 1}}"#, accepted: true),
        BodyCase(json: #"{"": {"type": "array"}}"#, body: #"[1, 2]"#, accepted: true),
        BodyCase(
            json: #"{"/code": 0, "/data": {"type": "object"}}"#, body: #"{"code": 0, "data": []}"#, accepted: false),
        BodyCase(
            json: #"{"/code": 0, "/data": {"type": "object"}}"#, body: #"{"code": 0, "data": {}}"#, accepted: true),
        BodyCase(json: #"{"/code": 0}"#, body: "<html>not json</html>", accepted: false),
        BodyCase(json: #"{"/code": 0}"#, body: #"{"code": 0"#, accepted: false),
        BodyCase(json: #"{"/code": 0}"#, body: "", accepted: false),
        BodyCase(json: #"{}"#, body: "not json, and no checks", accepted: true),
    ]

    @Test(
        "storeIf.json checks values, types and presence by JSON Pointer; a body that is not JSON fails",
        arguments: bodies)
    func bodyChecks(_ row: BodyCase) {
        #expect(row.run() == row.accepted)
    }

    @Test("a failed body check says store-if in Cache-Status")
    func storeIfDetail() {
        #expect(SkipReason.storeIf.detail == "store-if")
        let conditions = route(#"{"name": "r", "match": {"port": 80}, "storeIf": {"json": {"/a": 1}}}"#).options.storeIf
        #expect(conditions.checksBody)
        #expect(!StoreConditions().checksBody)
    }
}

@Suite("Error back-off")
struct ErrorBackoffTests {
    static let windows: [(failedAt: Int64?, now: Int64, window: Int64, open: Bool)] = [
        (nil, 100, 10, false),
        (100, 100, 10, true),
        (100, 109, 10, true),
        (100, 110, 10, false),
        (100, 105, 0, false),
        (100, 99, 10, false),
    ]

    @Test("the window is open for errorBackoff seconds after the last failure", arguments: windows)
    func window(failedAt: Int64?, now: Int64, window: Int64, open: Bool) {
        var backoff = ErrorBackoff()
        if let failedAt { backoff.recordFailure(at: failedAt) }
        #expect(backoff.isOpen(at: now, window: window) == open)
    }

    @Test("a success closes the window and resets the count; failures count up")
    func successCloses() {
        var backoff = ErrorBackoff()
        backoff.recordFailure(at: 100)
        backoff.recordFailure(at: 105)
        #expect(backoff.consecutiveFailures == 2)
        #expect(backoff.isOpen(at: 114, window: 10))
        backoff.recordSuccess()
        #expect(!backoff.isOpen(at: 106, window: 10))
        #expect(backoff.consecutiveFailures == 0)
    }

    @Test("one origin is its scheme and authority; 5xx counts as a failure")
    func originAndFailures() {
        #expect(ErrorBackoff.origin(of: url("https://API.example.test:443/a?b")) == "https://api.example.test")
        #expect(ErrorBackoff.origin(of: url("http://example.test:8080/")) == "http://example.test:8080")
        #expect(ErrorBackoff.isFailure(status: 503))
        #expect(ErrorBackoff.isFailure(status: 500))
        #expect(!ErrorBackoff.isFailure(status: 404))
        #expect(!ErrorBackoff.isFailure(status: 200))
    }
}
