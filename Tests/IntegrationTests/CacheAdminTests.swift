import Foundation
import Testing

/// Removing entries (`PURGE`, `DELETE /_larder/cache`) and reading what the cache did (`/_larder/stats`,
/// `/_larder/metrics`).
@Suite("Cache administration")
struct CacheAdminTests {
    /// An origin that varies on Accept-Language and numbers its bodies.
    static func varyingOrigin() throws -> OriginServer {
        try OriginServer { request in
            .ok(
                "\(request.target) \(request.header("Accept-Language") ?? "-") \(request.sequence)",
                cacheControl: "max-age=60", [("Vary", "Accept-Language")])
        }
    }

    @Test("PURGE of a URL removes every variant: 200, then each variant is a MISS")
    func purgeRemovesVariants() async throws {
        let origin = try Self.varyingOrigin()
        let larder = try await Daemon.start()
        let url = origin.url("/purge-me")
        let keep = origin.url("/keep-me")
        for language in ["en", "fr"] {
            #expect(try await Curl.get(url, via: larder, headers: ["Accept-Language: \(language)"]).xCache == "MISS")
            #expect(try await Curl.get(url, via: larder, headers: ["Accept-Language: \(language)"]).xCache == "HIT")
        }
        #expect(try await Curl.get(keep, via: larder).xCache == "MISS")

        let purge = try await Curl.run(["-X", "PURGE", url], via: larder)
        #expect(purge.status == 200)
        #expect(purge.bodyText.contains("\"purged\":2"))
        #expect(origin.requests.count == 3)

        for language in ["en", "fr"] {
            let after = try await Curl.get(url, via: larder, headers: ["Accept-Language: \(language)"])
            #expect(after.xCache == "MISS", "\(language)")
        }
        #expect(try await Curl.get(keep, via: larder).xCache == "HIT")
        #expect(origin.requests.count == 5)
    }

    @Test("PURGE of a URL nothing is stored for is a 404, and never reaches the origin")
    func purgeUnknown() async throws {
        let origin = try OriginServer { _ in .ok("x", cacheControl: "max-age=60") }
        let larder = try await Daemon.start()
        let purge = try await Curl.run(["-X", "PURGE", origin.url("/never-stored")], via: larder)
        #expect(purge.status == 404)
        #expect(purge.bodyText.contains("\"purged\":0"))
        #expect(origin.requests.isEmpty)
    }

    @Test("DELETE /_larder/cache?url= removes one URL's variants; DELETE /_larder/cache empties the cache")
    func deleteEndpoints() async throws {
        let origin = try Self.varyingOrigin()
        let larder = try await Daemon.start()
        let admin = "http://127.0.0.1:\(larder.port)/_larder/cache"
        let urls = ["/a", "/b", "/c"].map(origin.url)
        for url in urls {
            #expect(try await Curl.get(url, via: larder).xCache == "MISS")
            #expect(try await Curl.get(url, via: larder, headers: ["Accept-Language: fr"]).xCache == "MISS")
        }
        #expect(try await CacheStatsSnapshot.fetch(from: larder).entries == 6)

        // An ASCII URL always encodes.
        let encoded = urls[0].addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let one = try await Curl.run(["-X", "DELETE", "\(admin)?url=\(encoded)"], via: nil)
        #expect(one.status == 200)
        #expect(one.bodyText.contains("\"purged\":2"))
        #expect(try await Curl.get(urls[0], via: larder).xCache == "MISS")
        #expect(try await Curl.get(urls[1], via: larder).xCache == "HIT")
        #expect(try await CacheStatsSnapshot.fetch(from: larder).entries == 5)

        let all = try await Curl.run(["-X", "DELETE", admin], via: nil)
        #expect(all.status == 200)
        #expect(all.bodyText.contains("\"purged\":5"))
        let emptied = try await CacheStatsSnapshot.fetch(from: larder)
        #expect(emptied.entries == 0)
        #expect(emptied.memoryEntries == 0)
        for url in urls {
            #expect(try await Curl.get(url, via: larder, headers: ["Accept-Language: fr"]).xCache == "MISS")
        }
        // The cache works as before after being emptied.
        #expect(try await Curl.get(urls[2], via: larder, headers: ["Accept-Language: fr"]).xCache == "HIT")
    }

    @Test("DELETE /_larder/cache?url= with something that is not an absolute URL is a 400")
    func deleteBadURL() async throws {
        let larder = try await Daemon.start()
        let result = try await Curl.run(
            ["-X", "DELETE", "http://127.0.0.1:\(larder.port)/_larder/cache?url=not-a-url"], via: nil)
        #expect(result.status == 400)
    }

    @Test("GET /_larder/stats counts entries, bytes per tier, hits, misses, stale, revalidated and the hit ratio")
    func stats() async throws {
        let origin = try OriginServer { request in
            if request.path == "/validated", request.header("If-None-Match") == "\"e\"" {
                return OriginResponse(status: 304, headers: [("ETag", "\"e\""), ("Cache-Control", "max-age=1")])
            }
            if request.path == "/validated" {
                return .ok("validated", cacheControl: "max-age=1", [("ETag", "\"e\""), OriginResponse.dateHeader()])
            }
            return .ok(String(repeating: "s", count: 1000), cacheControl: "max-age=60")
        }
        let larder = try await Daemon.start()
        let empty = try await CacheStatsSnapshot.fetch(from: larder)
        #expect(empty.entries == 0)
        #expect(empty.hitRatio == 0)

        for path in ["/s1", "/s2"] {
            #expect(try await Curl.get(origin.url(path), via: larder).xCache == "MISS")
            #expect(try await Curl.get(origin.url(path), via: larder).xCache == "HIT")
            #expect(try await Curl.get(origin.url(path), via: larder).xCache == "HIT")
        }
        let validated = origin.url("/validated")
        #expect(try await Curl.get(validated, via: larder).xCache == "MISS")
        try await CachePoll.untilStale(validated, in: larder)
        #expect(try await Curl.get(validated, via: larder, headers: ["Cache-Control: max-stale=60"]).xCache == "STALE")
        #expect(try await Curl.get(validated, via: larder).xCache == "REVALIDATED")

        let stats = try await CacheStatsSnapshot.fetch(from: larder)
        #expect(stats.entries == 3)
        #expect(stats.diskEntries == 3)
        #expect(stats.memoryEntries == 3)
        #expect(stats.memoryBytes >= 2000)
        #expect(stats.diskBytes >= 2000)
        // Three fetches, and the 504 that told the poll the entry had turned stale.
        #expect(stats.count("miss") == 4)
        #expect(stats.count("stale") == 1)
        #expect(stats.count("revalidated") == 1)
        #expect(stats.count("expired") == 0)
        // The four hits above, and the poll's hits while the entry was fresh.
        let hits = stats.count("hit")
        #expect(hits >= 4)
        let lookups = Double(hits + stats.count("miss") + stats.count("revalidated") + stats.count("stale"))
        let expected = Double(hits + 2) / lookups
        #expect(abs(stats.hitRatio - expected) < 0.001, "hitRatio \(stats.hitRatio), expected \(expected)")
        #expect(origin.requests.count == 4)
    }

    @Test("GET /_larder/metrics is Prometheus text, and larder_requests_total moves with the traffic")
    func metrics() async throws {
        let origin = try OriginServer { _ in .ok("m", cacheControl: "max-age=60") }
        let larder = try await Daemon.start()
        let endpoint = "http://127.0.0.1:\(larder.port)/_larder/metrics"
        #expect(try await Curl.get(origin.url("/m"), via: larder).xCache == "MISS")
        for _ in 0..<3 { #expect(try await Curl.get(origin.url("/m"), via: larder).xCache == "HIT") }

        let first = try await Curl.run([endpoint], via: nil)
        #expect(first.status == 200)
        #expect(first.header("Content-Type")?.hasPrefix("text/plain") == true)
        #expect(first.bodyText.contains("# TYPE larder_requests_total counter"))
        let hits = try #require(
            Self.sample(in: first.bodyText, name: "larder_requests_total", label: "cache_status=\"HIT\""))
        let misses = try #require(
            Self.sample(in: first.bodyText, name: "larder_requests_total", label: "cache_status=\"MISS\""))
        #expect(hits == 3)
        #expect(misses == 1)
        #expect(Self.sample(in: first.bodyText, name: "larder_store_entries", label: "tier=\"disk\"") == 1)

        for _ in 0..<2 { #expect(try await Curl.get(origin.url("/m"), via: larder).xCache == "HIT") }
        let second = try await Curl.run([endpoint], via: nil)
        #expect(
            Self.sample(in: second.bodyText, name: "larder_requests_total", label: "cache_status=\"HIT\"") == hits + 2)
        #expect(
            Self.sample(in: second.bodyText, name: "larder_requests_total", label: "cache_status=\"MISS\"") == misses)
    }

    /// The value of the sample of metric `name` whose labels contain `label`, from Prometheus text format.
    static func sample(in text: String, name: String, label: String) -> Double? {
        let line = text.lines.first { $0.hasPrefix(name + "{") && $0.contains(label) }
        return line?.split(separator: " ").last.flatMap { Double($0) }
    }
}
