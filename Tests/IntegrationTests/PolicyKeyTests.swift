import Foundation
import Glibc
import Testing

/// A route's `key`: what joins the cache key (query rules, request headers, a digest of the body, a version), and
/// `storeAuthorized`, which keys a stored answer by a digest of the credentials. The URL sent to the origin never
/// changes; only the key does.
@Suite("Policy: cache keys")
struct PolicyKeyTests {
    /// An origin that names each response by its sequence and the target it was asked for.
    static func origin() throws -> PolicyOrigin {
        try PolicyOrigin { request in .ok("\(request.sequence) \(request.target)") }
    }

    static func route(_ key: String) -> String {
        PolicyConfig.everything(#""policy": "cache-first", "ttl": "1h", "key": \#(key)"#)
    }

    @Test("key.query.sort: a=1&b=2 and b=2&a=1 share one entry; without it they do not")
    func querySort() async throws {
        let origin = try Self.origin()
        let larder = try await Daemon.start(
            config: PolicyConfig.routes([
                #"{"name": "sorted", "match": {"path": "/sorted"}, "policy": "cache-first", "ttl": "1h", "key": {"query": {"sort": true}}}"#,
                #"{"name": "asis", "match": {"path": "/"}, "policy": "cache-first", "ttl": "1h"}"#,
            ]))
        #expect(try await Curl.get(origin.url("/sorted?a=1&b=2"), via: larder).xCache == "MISS")
        let shared = try await Curl.get(origin.url("/sorted?b=2&a=1"), via: larder)
        #expect(shared.xCache == "HIT")
        #expect(shared.bodyText == "1 /sorted?a=1&b=2")
        #expect(shared.cacheStatus?["key"] == "GET \(origin.url("/sorted?a=1&b=2"))")

        #expect(try await Curl.get(origin.url("/asis?a=1&b=2"), via: larder).xCache == "MISS")
        let separate = try await Curl.get(origin.url("/asis?b=2&a=1"), via: larder)
        #expect(separate.xCache == "MISS")
        // The origin gets the query as the client sent it.
        #expect(origin.requests.map(\.target) == ["/sorted?a=1&b=2", "/asis?a=1&b=2", "/asis?b=2&a=1"])
    }

    @Test("key.query.ignore: URLs that differ only in ignored parameters share one entry")
    func queryIgnore() async throws {
        let origin = try Self.origin()
        let larder = try await Daemon.start(config: Self.route(#"{"query": {"ignore": ["utm_*", "_"]}}"#))
        #expect(try await Curl.get(origin.url("/page?q=1&utm_source=mail"), via: larder).xCache == "MISS")
        for query in ["q=1&utm_source=web&utm_medium=x", "q=1&_=1700000000", "q=1"] {
            let hit = try await Curl.get(origin.url("/page?\(query)"), via: larder)
            #expect(hit.xCache == "HIT", "\(query)")
            #expect(hit.bodyText == "1 /page?q=1&utm_source=mail")
        }
        #expect(try await Curl.get(origin.url("/page?q=2&utm_source=mail"), via: larder).xCache == "MISS")
        #expect(origin.requests.map(\.target) == ["/page?q=1&utm_source=mail", "/page?q=2&utm_source=mail"])
    }

    @Test("key.query.only: only the listed parameters join the key")
    func queryOnly() async throws {
        let origin = try Self.origin()
        let larder = try await Daemon.start(config: Self.route(#"{"query": {"only": ["q", "page"]}}"#))
        #expect(try await Curl.get(origin.url("/search?q=x&page=2&session=a"), via: larder).xCache == "MISS")
        #expect(try await Curl.get(origin.url("/search?q=x&page=2&session=b"), via: larder).xCache == "HIT")
        #expect(try await Curl.get(origin.url("/search?q=x&page=2"), via: larder).xCache == "HIT")
        #expect(try await Curl.get(origin.url("/search?q=x&page=3&session=a"), via: larder).xCache == "MISS")
        #expect(origin.requests.count == 2)
    }

    @Test("key.headers: each Accept-Language gets its own entry, and a request without it another")
    func headers() async throws {
        let origin = try PolicyOrigin { request in
            .ok("\(request.sequence) \(request.header("Accept-Language") ?? "none")")
        }
        let larder = try await Daemon.start(config: Self.route(#"{"headers": ["Accept-Language"]}"#))
        let url = origin.url("/greeting")
        for (language, sequence) in [("de", 1), ("en", 2), (nil, 3)] {
            let headers = language.map { ["Accept-Language: \($0)"] } ?? []
            let miss = try await Curl.get(url, via: larder, headers: headers)
            #expect(miss.xCache == "MISS")
            #expect(miss.bodyText == "\(sequence) \(language ?? "none")")
        }
        for (language, sequence) in [("de", 1), ("en", 2), (nil, 3)] {
            let headers = language.map { ["Accept-Language: \($0)"] } ?? []
            let hit = try await Curl.get(url, via: larder, headers: headers)
            #expect(hit.xCache == "HIT")
            #expect(hit.bodyText == "\(sequence) \(language ?? "none")")
        }
        let field = try await Curl.get(url, via: larder, headers: ["Accept-Language: de"]).cacheStatus
        // The parameter's value as the test's parser leaves it: quotes inside the key stay escaped.
        #expect(field?["key"] == #"GET \#(url) accept-language=\"de\""#)
        #expect(origin.requests.count == 3)
    }

    @Test("key.body: a POST with the same body is a HIT, a different body a MISS; both reach the origin whole")
    func body() async throws {
        let origin = try PolicyOrigin { request in .ok("\(request.sequence) \(request.method) \(request.bodyText)") }
        let larder = try await Daemon.start(
            config: PolicyConfig.routes([
                #"{"name": "search", "match": {"path": "/search", "methods": ["POST"]}, "policy": "cache-first", "ttl": "1h", "key": {"body": true}}"#
            ]))
        let url = origin.url("/search")
        func post(_ body: String) async throws -> CurlResult {
            try await Curl.run(
                ["-H", "Content-Type: application/json", "--data-binary", body, url], via: larder)
        }
        let first = try await post(#"{"q":"larder"}"#)
        #expect(first.xCache == "MISS")
        #expect(first.bodyText == #"1 POST {"q":"larder"}"#)
        #expect(first.cacheStatus?.has("stored") == true)
        let again = try await post(#"{"q":"larder"}"#)
        #expect(again.xCache == "HIT")
        #expect(again.bodyText == #"1 POST {"q":"larder"}"#)
        let other = try await post(#"{"q":"pantry"}"#)
        #expect(other.xCache == "MISS")
        #expect(other.bodyText == #"2 POST {"q":"pantry"}"#)
        #expect(try await post(#"{"q":"pantry"}"#).xCache == "HIT")
        #expect(origin.requests.map(\.bodyText) == [#"{"q":"larder"}"#, #"{"q":"pantry"}"#])
        let key = try #require(again.cacheStatus?["key"])
        #expect(key.hasPrefix("POST \(url) body="))
        // A body-keyed POST is a query: it leaves the GET of the same URL alone, and is not one itself.
        let get = try await Curl.get(url, via: larder)
        #expect(get.bodyText == "3 GET ")
    }

    @Test("key.version: a new version, loaded by SIGHUP, makes the old entries unreachable")
    func version() async throws {
        let origin = try Self.origin()
        let larder = try await Daemon.start(config: Self.route(#"{"version": "v1"}"#))
        let url = origin.url("/versioned")
        #expect(try await Curl.get(url, via: larder).xCache == "MISS")
        let hit = try await Curl.get(url, via: larder)
        #expect(hit.xCache == "HIT")
        #expect(hit.cacheStatus?["key"] == "v1 GET \(url)")

        let path = try #require(larder.configPath)
        try Self.route(#"{"version": "v2"}"#).write(toFile: path, atomically: true, encoding: .utf8)
        larder.signal(SIGHUP)
        try await larder.waitForLog(containing: "msg=reloaded")
        let fresh = try await Curl.get(url, via: larder)
        #expect(fresh.xCache == "MISS")
        #expect(fresh.bodyText == "2 /versioned")
        #expect(try await Curl.get(url, via: larder).cacheStatus?["key"] == "v2 GET \(url)")
        #expect(origin.requests.count == 2)
    }

    @Test(
        "storeAuthorized: two users get their own stored responses, never each other's",
        arguments: [#""policy": "cache-first", "ttl": "1h""#, #""policy": "standard""#]
    )
    func storeAuthorized(policy: String) async throws {
        let origin = try PolicyOrigin { request in
            .ok("\(request.sequence) for \(request.header("Authorization") ?? "nobody")", cacheControl: "max-age=600")
        }
        let larder = try await Daemon.start(config: PolicyConfig.everything(policy + #", "storeAuthorized": true"#))
        let url = origin.url("/me")
        let users = ["Bearer alice-token", "Bearer bob-token"]
        for (index, user) in users.enumerated() {
            let miss = try await Curl.get(url, via: larder, headers: ["Authorization: \(user)"])
            #expect(miss.xCache == "MISS")
            #expect(miss.bodyText == "\(index + 1) for \(user)")
            #expect(miss.cacheStatus?.has("stored") == true)
        }
        for (index, user) in users.enumerated() {
            let hit = try await Curl.get(url, via: larder, headers: ["Authorization: \(user)"])
            #expect(hit.xCache == "HIT")
            #expect(hit.bodyText == "\(index + 1) for \(user)")
            let key = try #require(hit.cacheStatus?["key"])
            #expect(key.contains("authorization="))
            #expect(!key.contains("token"), "the credentials appear in clear: \(key)")
        }
        // Nobody's request gets a stored answer to someone else.
        let anonymous = try await Curl.get(url, via: larder)
        #expect(anonymous.xCache == "MISS")
        #expect(anonymous.bodyText == "3 for nobody")
        #expect(origin.requests.count == 3)
        // One entry per user, and the anonymous one.
        #expect(try await PolicyStoredEntry.list(in: larder, prefix: url).count == 3)
    }

    @Test("without storeAuthorized a response to a request with Authorization is not stored")
    func authorizedNotStored() async throws {
        let origin = try PolicyOrigin { request in .ok("\(request.sequence)") }
        let larder = try await Daemon.start(config: PolicyConfig.everything(#""policy": "cache-first", "ttl": "1h""#))
        let url = origin.url("/private")
        for sequence in 1...2 {
            let answer = try await Curl.get(url, via: larder, headers: ["Authorization: Bearer alice-token"])
            #expect(answer.xCache == "MISS")
            #expect(answer.bodyText == "\(sequence)")
            #expect(answer.cacheStatus?["detail"] == "authorization")
        }
    }
}
