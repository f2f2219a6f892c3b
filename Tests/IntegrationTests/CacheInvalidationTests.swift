import Testing

/// Unsafe requests invalidate what they may have changed (RFC 9111 §4.4).
@Suite("Cache invalidation")
struct CacheInvalidationTests {
    @Test(
        "a successful unsafe request invalidates the stored GET of its URL",
        arguments: ["POST", "PUT", "DELETE", "PATCH"])
    func unsafeInvalidates(method: String) async throws {
        let origin = try OriginServer { request in
            request.method == "GET"
                ? .ok("version \(request.sequence)", cacheControl: "max-age=60") : .ok("changed")
        }
        let larder = try await Daemon.start()
        let url = origin.url("/doc")
        #expect(try await Curl.get(url, via: larder).bodyText == "version 1")
        #expect(try await Curl.get(url, via: larder).xCache == "HIT")

        let change = try await Curl.run(["-X", method, "--data-binary", "new", url], via: larder)
        #expect(change.status == 200)
        #expect(change.xCache == "BYPASS")
        #expect(change.cacheStatus?["fwd"] == "method")

        let after = try await Curl.get(url, via: larder)
        #expect(after.xCache == "MISS")
        #expect(after.bodyText == "version 3")
        #expect(origin.requests.count == 3)
    }

    @Test("a POST also invalidates a same-origin Location and Content-Location, and nothing on another origin")
    func locationInvalidated() async throws {
        let other = try OriginServer { request in .ok("other \(request.sequence)", cacheControl: "max-age=60") }
        let origin = try OriginServer { request in
            if request.method == "POST" {
                return OriginResponse(
                    status: 201,
                    headers: [
                        ("Location", "/items/7"),
                        ("Content-Location", "http://\(request.header("Host") ?? "")/items/latest"),
                    ],
                    body: .bytes(Array("created".utf8)))
            }
            return .ok("\(request.target) v\(request.sequence)", cacheControl: "max-age=60")
        }
        let larder = try await Daemon.start()
        let item = origin.url("/items/7")
        let latest = origin.url("/items/latest")
        let unrelated = origin.url("/items/8")
        for url in [item, latest, unrelated, other.url("/items/7")] {
            #expect(try await Curl.get(url, via: larder).xCache == "MISS")
            #expect(try await Curl.get(url, via: larder).xCache == "HIT")
        }

        let post = try await Curl.run(["--data-binary", "x", origin.url("/items")], via: larder)
        #expect(post.status == 201)

        #expect(try await Curl.get(item, via: larder).xCache == "MISS")
        #expect(try await Curl.get(latest, via: larder).xCache == "MISS")
        #expect(try await Curl.get(unrelated, via: larder).xCache == "HIT")
        #expect(try await Curl.get(other.url("/items/7"), via: larder).xCache == "HIT")
    }

    @Test("an unsafe request that fails does not invalidate")
    func errorDoesNotInvalidate() async throws {
        let origin = try OriginServer { request in
            request.method == "GET"
                ? .ok("version \(request.sequence)", cacheControl: "max-age=60")
                : OriginResponse(status: 500, body: .bytes(Array("nope".utf8)))
        }
        let larder = try await Daemon.start()
        let url = origin.url("/doc")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")
        #expect(try await Curl.run(["--data-binary", "x", url], via: larder).status == 500)
        let after = try await Curl.get(url, via: larder)
        #expect(after.xCache == "HIT")
        #expect(after.bodyText == "version 1")
    }
}
