import Testing

/// `network-only`: the cache is neither read nor written (`X-Cache: BYPASS`); the origin sees every request.
@Suite("Policy: network-only")
struct PolicyNetworkOnlyTests {
    @Test("every request is a BYPASS that reaches the origin, and nothing is stored, whatever the origin allows")
    func bypassNeverStored() async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)", cacheControl: "public, max-age=600") }
        let larder = try await Daemon.start(config: PolicyConfig.everything(#""policy": "network-only""#, name: "live"))
        let url = origin.url("/live")
        for sequence in 1...3 {
            let answer = try await Curl.get(url, via: larder)
            #expect(answer.xCache == "BYPASS")
            #expect(answer.bodyText == "body \(sequence)")
            #expect(answer.cacheStatus?["fwd"] == "bypass")
            #expect(answer.cacheStatus?.has("stored") == false)
        }
        let cachedOnly = try await Curl.get(url, via: larder, headers: ["Cache-Control: only-if-cached"])
        #expect(cachedOnly.xCache == "BYPASS")
        #expect(origin.requests.count == 4)
        #expect(try await PolicyStoredEntry.list(in: larder, prefix: origin.url("/")).isEmpty)
        let line = try await Poll.value("an access line for \(url)") { larder.accessLines.last { $0["url"] == url } }
        #expect(line["route"] == "live")
        #expect(line["cache"] == "BYPASS")
    }

    @Test("a response another route stored under the same URL is never served")
    func storedEntryNotRead() async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)", cacheControl: "max-age=600") }
        let larder = try await Daemon.start(
            config: PolicyConfig.routes([
                #"{"name": "fill", "match": {"headers": ["X-Fill"]}, "policy": "standard"}"#,
                #"{"name": "live", "match": {"path": "/"}, "policy": "network-only"}"#,
            ]))
        let url = origin.url("/shared")
        #expect(try await Curl.get(url, via: larder, headers: ["X-Fill: 1"]).xCache == "MISS")
        #expect(try await Curl.get(url, via: larder, headers: ["X-Fill: 1"]).xCache == "HIT")
        let live = try await Curl.get(url, via: larder)
        #expect(live.xCache == "BYPASS")
        #expect(live.bodyText == "body 2")
        // Nor was it replaced: the other route still has its first answer.
        #expect(try await Curl.get(url, via: larder, headers: ["X-Fill: 1"]).bodyText == "body 1")
    }

    @Test("origin down is a 502 and a 5xx passes through, even with a stored response and staleIfError")
    func failuresPassThrough() async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)", cacheControl: "max-age=1") }
        let larder = try await Daemon.start(
            config: PolicyConfig.routes([
                #"{"name": "fill", "match": {"headers": ["X-Fill"]}, "policy": "standard"}"#,
                #"{"name": "live", "match": {"path": "/"}, "policy": "network-only", "staleIfError": "1h"}"#,
            ]))
        let url = origin.url("/live-fail")
        #expect(try await Curl.get(url, via: larder, headers: ["X-Fill: 1"]).xCache == "MISS")

        origin.set(.failing(status: 503))
        let failing = try await Curl.get(url, via: larder)
        #expect(failing.status == 503)
        #expect(failing.xCache == "BYPASS")
        #expect(failing.bodyText == "origin failing with 503")
        let refreshing = try await Curl.get(url, via: larder, headers: ["Cache-Control: no-cache"])
        #expect(refreshing.status == 503)
        #expect(refreshing.xCache == "BYPASS")

        try origin.goDown()
        let down = try await Curl.get(url, via: larder)
        #expect(down.status == 502)
        #expect(down.xCache == "BYPASS")
        #expect(down.header("Proxy-Status")?.contains("connection_refused") == true)
    }
}
