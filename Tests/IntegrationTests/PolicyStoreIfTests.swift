import Testing

/// A route's `storeIf`: what a fetched response must be to be stored. A response that fails it still reaches the
/// client whole, and `Cache-Status` says `detail=store-if`.
@Suite("Policy: storeIf")
struct PolicyStoreIfTests {
    /// Asks twice; the second answer says whether the first was stored.
    static func twice(_ url: String, via larder: Daemon) async throws -> (first: CurlResult, second: CurlResult) {
        (try await Curl.get(url, via: larder), try await Curl.get(url, via: larder))
    }

    @Test("storeIf.status: a 404 is passed on but not stored on cache-first (default [200]); listed, it is")
    func status() async throws {
        let origin = try PolicyOrigin { request in
            OriginResponse(status: 404, body: .bytes(Array("missing \(request.sequence)".utf8)))
        }
        let larder = try await Daemon.start(
            config: PolicyConfig.routes([
                #"{"name": "listed", "match": {"path": "/listed"}, "policy": "cache-first", "ttl": "1h", "storeIf": {"status": [200, 404]}}"#,
                #"{"name": "plain", "match": {"path": "/"}, "policy": "cache-first", "ttl": "1h"}"#,
            ]))
        let plain = try await Self.twice(origin.url("/plain"), via: larder)
        #expect(plain.first.status == 404)
        #expect(plain.first.bodyText == "missing 1")
        #expect(plain.first.cacheStatus?["detail"] == "store-if")
        #expect(plain.first.cacheStatus?.has("stored") == false)
        #expect(plain.second.xCache == "MISS")
        #expect(plain.second.bodyText == "missing 2")

        let listed = try await Self.twice(origin.url("/listed"), via: larder)
        #expect(listed.first.cacheStatus?.has("stored") == true)
        #expect(listed.second.status == 404)
        #expect(listed.second.xCache == "HIT")
        #expect(listed.second.bodyText == "missing 3")
        #expect(origin.requests.count == 3)
    }

    @Test(
        "storeIf.contentType: only the listed media types or prefixes are stored, parameters ignored",
        arguments: [
            ("application/json; charset=utf-8", true), ("Application/JSON", true), ("text/plain", true),
            ("text/html;charset=utf-8", true), ("application/problem+json", false), ("image/png", false),
            (nil, false),
        ] as [(String?, Bool)]
    )
    func contentType(type: String?, stored: Bool) async throws {
        let origin = try PolicyOrigin { request in
            .ok("body \(request.sequence)", type.map { [("Content-Type", $0)] } ?? [])
        }
        let larder = try await Daemon.start(
            config: PolicyConfig.everything(
                #""policy": "cache-first", "ttl": "1h", "storeIf": {"contentType": ["application/json", "text/"]}"#))
        let (first, second) = try await Self.twice(origin.url("/typed"), via: larder)
        #expect(first.bodyText == "body 1")
        #expect(first.cacheStatus?.has("stored") == stored)
        #expect(first.cacheStatus?["detail"] == (stored ? nil : "store-if"))
        #expect(second.xCache == (stored ? "HIT" : "MISS"))
        #expect(origin.requests.count == (stored ? 1 : 2))
    }

    @Test(
        "storeIf.json: a body that passes every check is stored; one that fails, or is not JSON, reaches the client unstored",
        arguments: [
            (#"{"code": 0, "data": {"items": []}}"#, true),
            (#"{"code": 0.0, "data": {}}"#, true),
            (#"{"code": 1, "data": {}}"#, false),
            (#"{"code": 0, "data": []}"#, false),
            (#"{"code": 0, "data": {}, "error": null}"#, false),
            (#"{"data": {}}"#, false),
            ("<html>not JSON</html>", false),
            ("", false),
        ]
    )
    func json(body: String, stored: Bool) async throws {
        let origin = try PolicyOrigin { _ in .ok(body, [("Content-Type", "application/json")]) }
        let larder = try await Daemon.start(
            config: PolicyConfig.everything(
                #""policy": "cache-first", "ttl": "1h", "storeIf": {"json": {"/code": 0, "/data": {"type": "object"}, "/error": {"present": false}}}"#
            ))
        let (first, second) = try await Self.twice(origin.url("/api"), via: larder)
        #expect(first.status == 200)
        #expect(first.bodyText == body)
        #expect(first.header("Content-Length") == "\(body.utf8.count)")
        #expect(first.cacheStatus?.has("stored") == stored)
        #expect(first.cacheStatus?["detail"] == (stored ? nil : "store-if"))
        #expect(second.xCache == (stored ? "HIT" : "MISS"))
        #expect(second.bodyText == body)
        #expect(origin.requests.count == (stored ? 1 : 2))
    }

    @Test("storeIf.json judges a chunked body whole, and passes it on whole")
    func jsonChunked() async throws {
        let origin = try PolicyOrigin { request in
            let code = request.path == "/good" ? 0 : 1
            return OriginResponse(
                headers: [("Content-Type", "application/json")],
                body: .chunked([Array(#"{"code": "#.utf8), Array("\(code), \"n\": ".utf8), Array("\(request.sequence)}".utf8)]))
        }
        let larder = try await Daemon.start(
            config: PolicyConfig.everything(#""policy": "cache-first", "ttl": "1h", "storeIf": {"json": {"/code": 0}}"#))
        let good = try await Self.twice(origin.url("/good"), via: larder)
        #expect(good.first.bodyText == #"{"code": 0, "n": 1}"#)
        #expect(good.second.xCache == "HIT")
        #expect(good.second.bodyText == #"{"code": 0, "n": 1}"#)
        let bad = try await Self.twice(origin.url("/bad"), via: larder)
        #expect(bad.first.bodyText == #"{"code": 1, "n": 2}"#)
        #expect(bad.first.cacheStatus?["detail"] == "store-if")
        #expect(bad.second.xCache == "MISS")
        #expect(bad.second.bodyText == #"{"code": 1, "n": 3}"#)
    }

    @Test("storeIf.json on a stale-while-revalidate route: a background refresh that fails the check keeps the stored body")
    func jsonOnRefresh() async throws {
        let origin = try PolicyOrigin { request in
            let code = request.sequence == 1 ? 0 : 1
            return .ok(#"{"code": \#(code), "n": \#(request.sequence)}"#, [("Content-Type", "application/json")])
        }
        let larder = try await Daemon.start(
            config: PolicyConfig.everything(
                #""policy": "stale-while-revalidate", "ttl": "1s", "maxStale": "1h", "storeIf": {"json": {"/code": 0}}"#))
        let url = origin.url("/refresh-checked")
        #expect(try await Curl.get(url, via: larder).cacheStatus?.has("stored") == true)
        try await PolicyStoredEntry.waitUntil(url, in: larder, isAtLeast: 1)
        #expect(try await Curl.get(url, via: larder).xCache == "STALE")
        try await Poll.until("the background refresh") { origin.requests.count == 2 }
        // The refresh's {"code": 1} was not stored: whatever follows is still the first body.
        let later = try await CachePoll.value("a second refresh") { () -> CurlResult? in
            let result = try await Curl.get(url, via: larder)
            return origin.requests.count >= 3 ? result : nil
        }
        #expect(later.bodyText == #"{"code": 0, "n": 1}"#)
    }
}
