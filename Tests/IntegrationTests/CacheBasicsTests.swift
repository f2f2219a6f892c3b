import Testing

/// A repeat request answered from the cache, with `X-Cache`, `Cache-Status` (RFC 9211) and `Age` (RFC 9111 §5.1).
@Suite("Cache basics")
struct CacheBasicsTests {
    @Test("a repeat GET inside max-age is a HIT with the same body, and the origin is contacted once")
    func missThenHit() async throws {
        let origin = try OriginServer { request in .ok("body of \(request.target)", cacheControl: "max-age=60") }
        let larder = try await Daemon.start()
        let url = origin.url("/a")

        let first = try await Curl.get(url, via: larder)
        #expect(first.status == 200)
        #expect(first.xCache == "MISS")
        #expect(first.bodyText == "body of /a")
        let second = try await Curl.get(url, via: larder)
        #expect(second.status == 200)
        #expect(second.xCache == "HIT")
        #expect(second.body == first.body)
        #expect(second.originSequence == first.originSequence)
        #expect(second.header("Age") != nil)
        #expect(origin.requests.count == 1)
    }

    @Test("a response is in the cache by the time its client has it: only-if-cached straight after the MISS is a HIT")
    func storedBeforeNextRequest() async throws {
        let origin = try OriginServer { request in .ok("body of \(request.target)", cacheControl: "max-age=60") }
        let larder = try await Daemon.start()
        for index in 0..<20 {
            let url = origin.url("/stored/\(index)")
            #expect(try await Curl.get(url, via: larder).xCache == "MISS")
            let cached = try await Curl.get(url, via: larder, headers: ["Cache-Control: only-if-cached"])
            #expect(cached.status == 200, "\(url): \(cached.bodyText)")
            #expect(cached.xCache == "HIT")
            #expect(cached.bodyText == "body of /stored/\(index)")
        }
        #expect(origin.requests.count == 20)
    }

    @Test("a MISS that is stored says fwd=uri-miss, fwd-status, stored and ttl; the HIT says hit and ttl")
    func cacheStatusFields() async throws {
        let origin = try OriginServer { _ in .ok("v1", cacheControl: "max-age=60") }
        let larder = try await Daemon.start()
        let url = origin.url("/fields")

        let miss = try #require(try await Curl.get(url, via: larder).cacheStatus)
        #expect(miss.cache == "larder")
        #expect(miss["fwd"] == "uri-miss")
        #expect(miss["fwd-status"] == "200")
        #expect(miss.has("stored"))
        #expect(!miss.has("hit"))
        #expect((50...60).contains(miss.ttl ?? -1))

        let hit = try #require(try await Curl.get(url, via: larder).cacheStatus)
        #expect(hit.has("hit"))
        #expect(hit["fwd"] == nil)
        #expect(!hit.has("stored"))
        #expect((50...60).contains(hit.ttl ?? -1))
        #expect(origin.requests.count == 1)
    }

    @Test("a HEAD is answered from a stored GET, with the GET's length and no body")
    func headFromStoredGet() async throws {
        let origin = try OriginServer { _ in .ok("twelve bytes", cacheControl: "max-age=60") }
        let larder = try await Daemon.start()
        let url = origin.url("/head")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")

        let client = try await RawClient.connect(port: larder.port)
        try await client.send("HEAD \(url) HTTP/1.1\r\nHost: 127.0.0.1:\(origin.port)\r\n\r\n")
        let head = try await client.readResponse(method: "HEAD")
        #expect(head.status == 200)
        #expect(head.xCache == "HIT")
        #expect(head.header("Content-Length") == "12")
        #expect(head.header("X-Origin-Seq") == "1")
        #expect(head.body.isEmpty)
        // The connection is still usable: no stray body bytes followed the head.
        try await client.send("GET \(url) HTTP/1.1\r\nHost: 127.0.0.1:\(origin.port)\r\n\r\n")
        let get = try await client.readResponse()
        #expect(get.bodyText == "twelve bytes")
        #expect(get.xCache == "HIT")
        #expect(origin.requests.count == 1)
    }

    @Test("a MISS and then a HIT carry the origin's fields in its order, repeats kept, with one X-Cache and length each (and one Age on the HIT), and Larder's Cache-Status member after the origin's")
    func hitHeadFields() async throws {
        let origin = try OriginServer { _ in
            OriginResponse(
                headers: [
                    ("Cache-Control", "max-age=60"), ("X-First", "1"), ("Link", "</a>; rel=preload"),
                    ("Link", "</b>; rel=preload"), ("X-Cache", "HIT from upstream"), ("Age", "2"),
                    ("Cache-Status", "upstream; hit"), ("X-Last", "z"),
                ],
                body: .bytes(Array("stored".utf8)))
        }
        let larder = try await Daemon.start()
        let url = origin.url("/fields")
        let miss = try await Curl.get(url, via: larder)
        #expect(miss.bodyText == "stored")
        for name in ["X-Cache", "Content-Length", "Via"] {
            #expect(miss.headers(name).count == 1, "\(name): \(miss.headers(name))")
        }
        #expect(miss.header("X-Cache") == "MISS")
        // RFC 9211 §2: each cache keeps the members before it and adds its own last.
        let missStatus = miss.headers("Cache-Status")
        #expect(missStatus.count == 2 && missStatus.first == "upstream; hit", "\(missStatus)")
        #expect(missStatus.last?.hasPrefix("larder; fwd=uri-miss") == true, "\(missStatus)")
        #expect(miss.headers("Link") == ["</a>; rel=preload", "</b>; rel=preload"])
        let hit = try await Curl.get(url, via: larder)
        #expect(hit.xCache == "HIT")
        #expect(hit.bodyText == "stored")
        let origins = hit.headers.map(\.name).filter { ["X-First", "Link", "X-Last"].contains($0) }
        #expect(origins == ["X-First", "Link", "Link", "X-Last"])
        #expect(hit.headers("Link") == ["</a>; rel=preload", "</b>; rel=preload"])
        for name in ["Age", "X-Cache", "Content-Length", "Via"] {
            #expect(hit.headers(name).count == 1, "\(name): \(hit.headers(name))")
        }
        #expect(hit.header("Content-Length") == "6")
        let hitStatus = hit.headers("Cache-Status")
        #expect(hitStatus.count == 2 && hitStatus.first == "upstream; hit", "\(hitStatus)")
        #expect(hitStatus.last?.hasPrefix("larder; hit") == true, "\(hitStatus)")
        #expect(Int(hit.header("Age") ?? "") ?? -1 >= 2)
    }

    @Test("Age is sent on every hit and grows while the entry sits in the cache")
    func ageGrows() async throws {
        let origin = try OriginServer { _ in .ok("aging", cacheControl: "max-age=600", [OriginResponse.dateHeader()]) }
        let larder = try await Daemon.start()
        let url = origin.url("/age")
        let miss = try await Curl.get(url, via: larder)
        #expect(miss.xCache == "MISS")

        let first = try await Curl.get(url, via: larder)
        #expect(first.xCache == "HIT")
        let firstAge = try #require(first.age)
        let later = try await CachePoll.value("Age to grow past \(firstAge)") { () -> CurlResult? in
            let hit = try await Curl.get(url, via: larder)
            return (hit.age ?? 0) > firstAge ? hit : nil
        }
        #expect(later.xCache == "HIT")
        #expect(try #require(later.age) >= 1)
        // ttl is max-age minus Age.
        #expect(later.cacheStatus?.ttl == 600 - (later.age ?? 0))
        #expect(origin.requests.count == 1)
    }

    @Test("the origin's own Age counts: a response that arrives 30 s old is served with Age of at least 30")
    func originAgeCounts() async throws {
        let origin = try OriginServer { _ in
            .ok("old", cacheControl: "max-age=60", [OriginResponse.dateHeader(), ("Age", "30")])
        }
        let larder = try await Daemon.start()
        let url = origin.url("/aged")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")
        let hit = try await Curl.get(url, via: larder)
        #expect(hit.xCache == "HIT")
        let age = try #require(hit.age)
        #expect((30...40).contains(age))
        #expect(hit.cacheStatus?.ttl == 60 - age)
    }

    @Test("a 201 without explicit freshness is passed on and not stored (detail=not-cacheable)")
    func notCacheableStatus() async throws {
        let origin = try OriginServer(always: OriginResponse(status: 201, body: .bytes(Array("made".utf8))))
        let larder = try await Daemon.start()
        let url = origin.url("/created")
        let first = try await Curl.get(url, via: larder)
        #expect(first.xCache == "MISS")
        #expect(first.cacheStatus?["detail"] == "not-cacheable")
        #expect(first.cacheStatus?.has("stored") == false)
        let second = try await Curl.get(url, via: larder)
        #expect(second.xCache == "MISS")
        #expect(origin.requests.count == 2)
    }

    @Test("heuristic freshness from Last-Modified: a 200 modified long ago is stored without max-age")
    func heuristicFreshness() async throws {
        let lastModified = OriginResponse.httpDate(.now.addingTimeInterval(-100 * 86_400))
        let origin = try OriginServer { _ in
            .ok("heuristic", [OriginResponse.dateHeader(), ("Last-Modified", lastModified)])
        }
        let larder = try await Daemon.start(config: #"{"cache": {"heuristicMaxAge": "1h"}}"#)
        let url = origin.url("/heuristic")
        let miss = try await Curl.get(url, via: larder)
        #expect(miss.xCache == "MISS")
        #expect(miss.cacheStatus?.has("stored") == true)
        // 10 % of 100 days, capped by heuristicMaxAge.
        #expect((3500...3600).contains(miss.cacheStatus?.ttl ?? -1))
        let hit = try await Curl.get(url, via: larder)
        #expect(hit.xCache == "HIT")
        #expect(hit.bodyText == "heuristic")
        #expect(origin.requests.count == 1)
    }

    @Test("different URLs are different entries, and the query is part of the key")
    func urlsAreDistinct() async throws {
        let origin = try OriginServer { request in .ok("for \(request.target)", cacheControl: "max-age=60") }
        let larder = try await Daemon.start()
        for target in ["/p", "/p?x=1", "/p?x=2", "/q"] {
            let result = try await Curl.get(origin.url(target), via: larder)
            #expect(result.xCache == "MISS", "\(target)")
            #expect(result.bodyText == "for \(target)")
        }
        for target in ["/p", "/p?x=1", "/p?x=2", "/q"] {
            let result = try await Curl.get(origin.url(target), via: larder)
            #expect(result.xCache == "HIT", "\(target)")
            #expect(result.bodyText == "for \(target)")
        }
        #expect(origin.requests.count == 4)
    }

    @Test(
        "bodies of every size around the store's thresholds come back byte for byte, before and after a restart",
        arguments: [0, 1, 16 * 1024, 16 * 1024 + 1, 1 << 20, (1 << 20) + 1]  // inline limit; memory-tier body limit
    )
    func sizesAroundThresholds(size: Int) async throws {
        let origin = try OriginServer(
            always: OriginResponse(headers: [("Cache-Control", "max-age=600")], body: .generated(count: size)))
        let larder = try await Daemon.start()
        let url = origin.url("/sized")
        let miss = try await Curl.get(url, via: larder)
        #expect(miss.xCache == "MISS")
        #expect(miss.cacheStatus?.has("stored") == true)
        try await Self.expectHit(url, size: size, via: larder)
        #expect(try await larder.terminate() == 0)
        try await Self.expectHit(url, size: size, via: try await larder.restart())
        #expect(origin.requests.count == 1)
    }

    static func expectHit(_ url: String, size: Int, via larder: Daemon) async throws {
        let hit = try await Curl.get(url, via: larder)
        #expect(hit.xCache == "HIT")
        #expect(hit.body.count == size)
        #expect(Payload.firstGeneratedMismatch(hit.body) == nil)
        #expect(hit.header("Content-Length") == "\(size)")
    }

    @Test("pipelined requests for one URL on one connection: a MISS, then HITs, one origin fetch")
    func pipelined() async throws {
        let origin = try OriginServer { request in .ok("piped \(request.sequence)", cacheControl: "max-age=60") }
        let larder = try await Daemon.start()
        let url = origin.url("/piped")
        let client = try await RawClient.connect(port: larder.port)
        let request = "GET \(url) HTTP/1.1\r\nHost: 127.0.0.1:\(origin.port)\r\n\r\n"
        try await client.send(String(repeating: request, count: 3))
        var statuses: [String] = []
        for _ in 0..<3 {
            let response = try await client.readResponse()
            #expect(response.bodyText == "piped 1")
            statuses.append(response.xCache ?? "-")
        }
        #expect(statuses == ["MISS", "HIT", "HIT"])
        #expect(origin.requests.count == 1)
    }

    @Test("with the cache unavailable, Larder still proxies, and every GET says BYPASS")
    func cacheUnavailable() async throws {
        let origin = try OriginServer { request in .ok("seq \(request.sequence)", cacheControl: "max-age=60") }
        // The config file itself stands where the cache directory's parent should be: it cannot be created.
        let larder = try await Daemon.start(
            config: #"{"cache": {"directory": "{{stateDirectory}}/larder.json/cache"}}"#)
        let url = origin.url("/no-cache-dir")
        for sequence in 1...2 {
            let result = try await Curl.get(url, via: larder)
            #expect(result.status == 200)
            #expect(result.bodyText == "seq \(sequence)")
            #expect(result.xCache == "BYPASS")
            #expect(result.cacheStatus?["fwd"] == "bypass")
        }
        #expect(larder.log.contains("cache unavailable"))
    }

    @Test("a large body (over the inline size, so in a file) is stored and served back byte for byte")
    func largeBodyHit() async throws {
        let size = 3 * 1024 * 1024 + 17
        let origin = try OriginServer(
            always: OriginResponse(headers: [("Cache-Control", "max-age=60")], body: .generated(count: size)))
        let larder = try await Daemon.start()
        let url = origin.url("/large")
        let miss = try await Curl.get(url, via: larder)
        #expect(miss.xCache == "MISS")
        #expect(miss.body.count == size)
        #expect(Payload.firstGeneratedMismatch(miss.body) == nil)
        let hit = try await Curl.get(url, via: larder)
        #expect(hit.xCache == "HIT")
        #expect(hit.body.count == size)
        #expect(Payload.firstGeneratedMismatch(hit.body) == nil)
        #expect(hit.header("Content-Length") == "\(size)")
        #expect(origin.requests.count == 1)
    }
}
