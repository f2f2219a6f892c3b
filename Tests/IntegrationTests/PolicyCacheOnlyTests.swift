import Foundation
import Glibc
import Testing

/// `cache-only`: answers only from the cache, whatever the stored response's age, and never asks the origin; a miss
/// is a 504 naming the key that was looked up (offline work, CI replays).
@Suite("Policy: cache-only")
struct PolicyCacheOnlyTests {
    static let routes = PolicyConfig.routes([
        #"{"name": "fill", "match": {"headers": ["X-Fill"]}, "policy": "standard"}"#,
        #"{"name": "offline", "match": {"path": "/"}, "policy": "cache-only"}"#,
    ])

    @Test("a response another route stored is a HIT however old, with the origin down and the client asking for no-cache")
    func hitWhateverAge() async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)", cacheControl: "max-age=1") }
        let larder = try await Daemon.start(config: Self.routes)
        let url = origin.url("/co")
        #expect(try await Curl.get(url, via: larder, headers: ["X-Fill: 1"]).xCache == "MISS")
        try origin.goDown()
        try await PolicyStoredEntry.waitUntil(url, in: larder, isAtLeast: 2)

        for headers in [[], ["Cache-Control: no-cache"], ["Pragma: no-cache"], ["Cache-Control: max-age=0"]] {
            let hit = try await Curl.get(url, via: larder, headers: headers)
            #expect(hit.status == 200, "\(headers)")
            #expect(hit.xCache == "HIT", "\(headers)")
            #expect(hit.bodyText == "body 1")
            #expect(try #require(hit.age) >= 2)
            // Without a route ttl, ttl is measured against the origin's max-age=1: negative by now.
            #expect(hit.cacheStatus?.ttl == 1 - (hit.age ?? 0))
        }
        #expect(origin.requests.count == 1)
        let line = try await Poll.value("the HITs' access lines") { () -> AccessLogLine? in
            let hits = larder.accessLines.filter { $0["cache"] == "HIT" }
            return hits.count == 4 ? hits.last : nil
        }
        #expect(line["route"] == "offline")
    }

    @Test("with a route ttl, Cache-Status ttl is measured against it")
    func ttlFromRoute() async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)", cacheControl: "max-age=1") }
        let larder = try await Daemon.start(
            config: PolicyConfig.routes([
                #"{"name": "fill", "match": {"headers": ["X-Fill"]}, "policy": "standard"}"#,
                #"{"name": "offline", "match": {"path": "/"}, "policy": "cache-only", "ttl": "1h"}"#,
            ]))
        let url = origin.url("/co-ttl")
        #expect(try await Curl.get(url, via: larder, headers: ["X-Fill: 1"]).xCache == "MISS")
        let hit = try await Curl.get(url, via: larder)
        #expect(hit.xCache == "HIT")
        #expect(hit.cacheStatus?.ttl == 3600 - (hit.age ?? -1))
    }

    @Test("a miss is a 504 naming the key looked up, and the origin is never asked")
    func missNamesKey() async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)") }
        let larder = try await Daemon.start(
            config: PolicyConfig.everything(
                #""policy": "cache-only", "key": {"version": "v7", "query": {"sort": true}}"#, name: "offline"))
        let url = origin.url("/co-miss?b=2&a=1")

        let miss = try await Curl.get(url, via: larder)
        #expect(miss.status == 504)
        #expect(miss.xCache == "MISS")
        #expect(miss.header("Proxy-Status")?.contains("destination_unavailable") == true)
        let key = "v7 GET \(origin.url("/co-miss?a=1&b=2"))"
        #expect(miss.bodyText.contains(key), "\(miss.bodyText)")
        #expect(miss.bodyText.contains("cache-only"))
        #expect(miss.cacheStatus?["key"] == key)
        let json = try await Curl.get(url, via: larder, headers: ["Accept: application/json"])
        #expect(json.status == 504)
        let decoded = try JSONSerialization.jsonObject(with: Data(json.body)) as? [String: Any]
        #expect((decoded?.values.compactMap { $0 as? String }.contains { $0.contains(key) }) == true, "\(json.bodyText)")
        #expect(origin.requests.isEmpty)
    }

    @Test("a stored body found damaged is a 504 on cache-only, never a trip to the origin")
    func damagedBody() async throws {
        let size = 3_000_000
        let origin = try PolicyOrigin { _ in
            OriginResponse(headers: [("Cache-Control", "max-age=600")], body: .generated(count: size))
        }
        let larder = try await Daemon.start(config: Self.routes)
        let url = origin.url("/co-damaged")
        #expect(try await Curl.get(url, via: larder, headers: ["X-Fill: 1"]).xCache == "MISS")
        // Not served before it is damaged: serving has the store check the body, and drop it, in the background.
        #expect(try await PolicyStoredEntry.list(in: larder, prefix: url).count == 1)
        let files = try CacheDurabilityTests.bodyFiles(under: larder.cacheHome)
        try #require(files.count == 1, "body files: \(files)")
        try CacheDurabilityTests.flipBytes(in: files[0], at: [size / 3])

        let miss = try await Curl.get(url, via: larder)
        #expect(miss.status == 504)
        #expect(miss.bodyText.contains("GET \(url)"))
        #expect(origin.requests.count == 1)
    }

    @Test("a config swapped to cache-only by SIGHUP answers from what was stored before; other URLs are 504")
    func swappedBySIGHUP() async throws {
        let origin = try PolicyOrigin { request in .ok("body \(request.sequence)", cacheControl: "max-age=1") }
        let larder = try await Daemon.start(config: "{}")
        let url = origin.url("/co-swap")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")

        let path = try #require(larder.configPath)
        try PolicyConfig.everything(#""policy": "cache-only""#, name: "offline")
            .write(toFile: path, atomically: true, encoding: .utf8)
        larder.signal(SIGHUP)
        try await larder.waitForLog(containing: "msg=reloaded")
        try await PolicyStoredEntry.waitUntil(url, in: larder, isAtLeast: 2)

        let hit = try await Curl.get(url, via: larder)
        #expect(hit.xCache == "HIT")
        #expect(hit.bodyText == "body 1")
        let other = try await Curl.get(origin.url("/co-never"), via: larder)
        #expect(other.status == 504)
        #expect(other.bodyText.contains("GET \(origin.url("/co-never"))"))
        #expect(origin.requests.count == 1)
    }
}
