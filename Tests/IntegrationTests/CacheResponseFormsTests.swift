import Testing

/// Responses of every shape: chunked, partial (206), cut short, `no-cache`, validated by `Last-Modified`
/// (RFC 9111 §3.3, §4.3, §5.2.2.4).
@Suite("Cache response forms")
struct CacheResponseFormsTests {
    @Test("a chunked response is stored whole and served from the cache with its length")
    func chunkedStored() async throws {
        let chunks = [Array("first ".utf8), Array("second ".utf8), [UInt8](repeating: 0x7A, count: 40_000)]
        let origin = try OriginServer(
            always: OriginResponse(headers: [("Cache-Control", "max-age=60")], body: .chunked(chunks)))
        let larder = try await Daemon.start()
        let url = origin.url("/chunked")
        let miss = try await Curl.get(url, via: larder)
        #expect(miss.xCache == "MISS")
        #expect(miss.body == chunks.flatMap { $0 })
        let hit = try await Curl.get(url, via: larder)
        #expect(hit.xCache == "HIT")
        #expect(hit.body == miss.body)
        #expect(hit.header("Content-Length") == "\(miss.body.count)")
        #expect(hit.header("Transfer-Encoding") == nil)
        #expect(origin.requests.count == 1)
    }

    @Test("a response cut short by the origin is not stored: the next request goes to the origin")
    func incompleteNotStored() async throws {
        let origin = try OriginServer { request in
            var response = OriginResponse(headers: [("Cache-Control", "max-age=60")], body: .generated(count: 100_000))
            if request.sequence == 1 { response.fault = .cutBody(afterBytes: 40_000) }
            return response
        }
        let larder = try await Daemon.start()
        let url = origin.url("/cut")
        let cut = try await Curl.get(url, via: larder)
        #expect(cut.exitCode != 0)
        #expect(cut.body.count < 100_000)
        let whole = try await Curl.get(url, via: larder)
        #expect(whole.xCache == "MISS")
        #expect(whole.body.count == 100_000)
        #expect(Payload.firstGeneratedMismatch(whole.body) == nil)
        let hit = try await Curl.get(url, via: larder)
        #expect(hit.xCache == "HIT")
        #expect(Payload.firstGeneratedMismatch(hit.body) == nil)
        #expect(origin.requests.count == 2)
    }

    @Test("a 206 to a Range request is passed on and not stored as the complete response")
    func partialNotStored() async throws {
        let full = Array("0123456789abcdefghij".utf8)
        let origin = try OriginServer { request in
            if request.header("Range") == "bytes=0-4" {
                return OriginResponse(
                    status: 206, headers: [("Cache-Control", "max-age=60"), ("Content-Range", "bytes 0-4/20")],
                    body: .bytes(Array(full[0..<5])))
            }
            return OriginResponse(headers: [("Cache-Control", "max-age=60")], body: .bytes(full))
        }
        let larder = try await Daemon.start()
        let url = origin.url("/ranged")
        let partial = try await Curl.run(["-r", "0-4", url], via: larder)
        #expect(partial.status == 206)
        #expect(partial.bodyText == "01234")
        #expect(partial.cacheStatus?["detail"] == "partial")
        let whole = try await Curl.get(url, via: larder)
        #expect(whole.xCache == "MISS")
        #expect(whole.body == full)
        #expect(try await Curl.get(url, via: larder).body == full)
        #expect(origin.requests.count == 2)
    }

    @Test("a response that says no-cache is stored but validated before every use")
    func responseNoCache() async throws {
        let origin = try OriginServer { request in
            if request.header("If-None-Match") == "\"nc\"" {
                return OriginResponse(status: 304, headers: [("ETag", "\"nc\""), ("Cache-Control", "no-cache")])
            }
            return .ok("checked", cacheControl: "no-cache", [("ETag", "\"nc\"")])
        }
        let larder = try await Daemon.start()
        let url = origin.url("/no-cache")
        let first = try await Curl.get(url, via: larder)
        #expect(first.xCache == "MISS")
        #expect(first.cacheStatus?.has("stored") == true)
        for expected in 2...3 {
            let again = try await Curl.get(url, via: larder)
            #expect(again.xCache == "REVALIDATED")
            #expect(again.bodyText == "checked")
            #expect(origin.requests.count == expected)
            #expect(origin.requests.last?.header("If-None-Match") == "\"nc\"")
        }
    }

    @Test("a stale entry with only Last-Modified is validated with If-Modified-Since")
    func lastModifiedValidation() async throws {
        let lastModified = OriginResponse.httpDate(.now.addingTimeInterval(-3600))
        let origin = try OriginServer { request in
            if request.header("If-Modified-Since") == lastModified {
                return OriginResponse(
                    status: 304, headers: [("Cache-Control", "max-age=60"), OriginResponse.dateHeader()])
            }
            return .ok(
                "dated", cacheControl: "max-age=1", [("Last-Modified", lastModified), OriginResponse.dateHeader()])
        }
        let larder = try await Daemon.start()
        let url = origin.url("/dated")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")
        try await CachePoll.untilStale(url, in: larder)
        let revalidated = try await Curl.get(url, via: larder)
        #expect(revalidated.xCache == "REVALIDATED")
        #expect(revalidated.bodyText == "dated")
        #expect(origin.requests.last?.header("If-Modified-Since") == lastModified)
        // The 304's max-age=60 replaced the stored max-age=1.
        #expect(revalidated.header("Cache-Control") == "max-age=60")
        let hit = try await Curl.get(url, via: larder)
        #expect(hit.xCache == "HIT")
        #expect(origin.requests.count == 2)
    }

    @Test("a HIT carries Larder's Via once, and the origin's fields as stored")
    func hitFields() async throws {
        let origin = try OriginServer { _ in
            .ok(
                "fields", cacheControl: "max-age=60",
                [("X-Custom", "a"), ("X-Custom", "b"), ("Content-Type", "text/x")])
        }
        let larder = try await Daemon.start()
        let url = origin.url("/fields")
        let miss = try await Curl.get(url, via: larder)
        let hit = try await Curl.get(url, via: larder)
        #expect(hit.xCache == "HIT")
        #expect(hit.headers("Via") == ["1.1 larder"])
        #expect(miss.headers("Via") == ["1.1 larder"])
        #expect(hit.headers("X-Custom") == ["a", "b"])
        #expect(hit.header("Content-Type") == "text/x")
        #expect(hit.headers("X-Cache").count == 1)
        #expect(hit.headers("Cache-Status").count == 1)
        #expect(hit.headers("Age").count == 1)
    }
}
