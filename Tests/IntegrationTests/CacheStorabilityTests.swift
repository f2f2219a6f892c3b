import Testing

/// What a shared cache must not store (RFC 9111 §3), and how `Vary` selects among stored variants (§4.1).
@Suite("Cache storability and Vary")
struct CacheStorabilityTests {
    struct Unstorable: Sendable, CustomStringConvertible {
        var name: String
        var responseHeaders: [(String, String)]
        var requestHeaders: [String] = []
        var detail: String
        var description: String { name }
    }

    static let unstorable: [Unstorable] = [
        Unstorable(name: "no-store", responseHeaders: [("Cache-Control", "max-age=60, no-store")], detail: "no-store"),
        Unstorable(name: "private", responseHeaders: [("Cache-Control", "max-age=60, private")], detail: "private"),
        Unstorable(
            name: "Authorization without public", responseHeaders: [("Cache-Control", "max-age=60")],
            requestHeaders: ["Authorization: Bearer secret"], detail: "authorization"),
        Unstorable(
            name: "Set-Cookie", responseHeaders: [("Cache-Control", "max-age=60"), ("Set-Cookie", "session=1")],
            detail: "set-cookie"),
        Unstorable(
            name: "request no-store", responseHeaders: [("Cache-Control", "max-age=60")],
            requestHeaders: ["Cache-Control: no-store"], detail: "request-no-store"),
    ]

    @Test(
        "a response the cache must not store is passed on, never stored, and Cache-Status says why",
        arguments: unstorable)
    func neverStored(_ example: Unstorable) async throws {
        let origin = try OriginServer { request in
            OriginResponse(headers: example.responseHeaders, body: .bytes(Array("seq \(request.sequence)".utf8)))
        }
        let larder = try await Daemon.start()
        let url = origin.url("/unstorable")
        let first = try await Curl.get(url, via: larder, headers: example.requestHeaders)
        #expect(first.status == 200)
        #expect(first.xCache == "MISS")
        #expect(first.bodyText == "seq 1")
        let status = try #require(first.cacheStatus)
        #expect(status["detail"] == example.detail)
        #expect(status["fwd"] == "uri-miss")
        #expect(status["fwd-status"] == "200")
        #expect(!status.has("stored"))

        let second = try await Curl.get(url, via: larder, headers: example.requestHeaders)
        #expect(second.xCache == "MISS")
        #expect(second.bodyText == "seq 2")
        #expect(origin.requests.count == 2)
        // Nothing was stored for anyone else either.
        let cached = try await Curl.get(url, via: larder, headers: ["Cache-Control: only-if-cached"])
        #expect(cached.status == 504)
        #expect(origin.requests.count == 2)
        if example.responseHeaders.contains(where: { $0.0 == "Set-Cookie" }) {
            #expect(first.header("Set-Cookie") == "session=1")
        }
    }

    @Test(
        "with Authorization, a response that says public is stored", arguments: ["public, max-age=60", "s-maxage=60"])
    func authorizationWithPublic(cacheControl: String) async throws {
        let origin = try OriginServer { request in .ok("seq \(request.sequence)", cacheControl: cacheControl) }
        let larder = try await Daemon.start()
        let url = origin.url("/auth-public")
        let first = try await Curl.get(url, via: larder, headers: ["Authorization: Bearer secret"])
        #expect(first.xCache == "MISS")
        #expect(first.cacheStatus?.has("stored") == true)
        let second = try await Curl.get(url, via: larder, headers: ["Authorization: Bearer secret"])
        #expect(second.xCache == "HIT")
        #expect(second.bodyText == "seq 1")
        #expect(origin.requests.count == 1)
    }

    @Test("Proxy-* fields from the origin are never stored: a hit does not carry them")
    func proxyFieldsNotStored() async throws {
        let origin = try OriginServer { _ in
            .ok("hi", cacheControl: "max-age=60", [("Proxy-Status", "upstream; error=none"), ("X-Kept", "yes")])
        }
        let larder = try await Daemon.start()
        let url = origin.url("/proxy-fields")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")
        let hit = try await Curl.get(url, via: larder)
        #expect(hit.xCache == "HIT")
        #expect(hit.header("X-Kept") == "yes")
        #expect(hit.header("Proxy-Status") == nil)
    }

    @Test("Vary: Accept-Language stores two variants side by side, each served to the matching client")
    func varyTwoVariants() async throws {
        let origin = try OriginServer { request in
            let language = request.header("Accept-Language") ?? "none"
            return .ok(
                "in \(language)", cacheControl: "max-age=60",
                [("Vary", "Accept-Language"), ("Content-Language", language)])
        }
        let larder = try await Daemon.start()
        let url = origin.url("/greeting")
        let english = try await Curl.get(url, via: larder, headers: ["Accept-Language: en"])
        #expect(english.xCache == "MISS")
        #expect(english.bodyText == "in en")
        let french = try await Curl.get(url, via: larder, headers: ["Accept-Language: fr"])
        #expect(french.xCache == "MISS")
        #expect(french.bodyText == "in fr")
        #expect(french.cacheStatus?["fwd"] == "vary-miss")
        #expect(origin.requests.count == 2)

        for _ in 0..<2 {
            for language in ["en", "fr"] {
                let hit = try await Curl.get(url, via: larder, headers: ["Accept-Language: \(language)"])
                #expect(hit.xCache == "HIT", "\(language)")
                #expect(hit.bodyText == "in \(language)")
                #expect(hit.header("Content-Language") == language)
            }
        }
        #expect(origin.requests.count == 2)
        // A third language, and no Accept-Language at all, are variants of their own.
        #expect(try await Curl.get(url, via: larder, headers: ["Accept-Language: de"]).bodyText == "in de")
        #expect(try await Curl.get(url, via: larder).bodyText == "in none")
        #expect(origin.requests.count == 4)
        #expect(try await Curl.get(url, via: larder).xCache == "HIT")
        #expect(try await Curl.get(url, via: larder, headers: ["Accept-Language: en"]).bodyText == "in en")
        #expect(origin.requests.count == 4)
    }

    @Test("Vary: * is never served from the cache")
    func varyStar() async throws {
        let origin = try OriginServer { request in
            .ok("seq \(request.sequence)", cacheControl: "max-age=60", [("Vary", "*")])
        }
        let larder = try await Daemon.start()
        let url = origin.url("/vary-star")
        for sequence in 1...3 {
            let result = try await Curl.get(url, via: larder)
            #expect(result.xCache == "MISS")
            #expect(result.bodyText == "seq \(sequence)")
            #expect(result.cacheStatus?.has("stored") == false)
        }
        #expect(origin.requests.count == 3)
    }
}
