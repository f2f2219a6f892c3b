import Foundation
import Glibc
import Testing

/// Only what the issue says is queued: unsafe requests on a route with `queue`, with a body within
/// `queue.maxBodySize`, whose origin cannot be reached. Everything else is answered as it was before (issue 5).
@Suite("Offline queue: what is queued and what is not")
struct QueueScopeTests {
    /// Ways an origin cannot be reached.
    enum Unreachable: String, CaseIterable, Sendable {
        case dnsError = "dns_error"
        case connectionTimeout = "connection_timeout"
    }

    @Test("a write is queued when its host does not resolve or its connect times out", arguments: Unreachable.allCases)
    func otherUnreachableOrigins(_ cause: Unreachable) async throws {
        let silent = try SilentListener()
        let larder = try await Daemon.start(
            config: #"""
                {"routes": [{"name": "writes", "match": {"methods": ["POST"]}, "queue": true}],
                 "timeouts": {"connect": "1s"}, "queue": {"backoffBase": "1h", "backoffMax": "1h"}}
                """#)
        let url =
            switch cause {
            case .dnsError: "http://nonexistent.invalid/orders"
            case .connectionTimeout: "http://\(silent.authority)/orders"
            }
        let result = try await Curl.run(QueueConfig.write("POST", url, body: "x"), via: larder)
        #expect(result.xCache == "QUEUED")
        #expect(try QueueReceipt(result).reason == cause.rawValue)
        #expect(try await QueueSnapshot.read(from: larder).requests.map(\.url) == [url])
        withExtendedLifetime(silent) {}
    }

    @Test("a route without queue answers 502 connection_refused as before, and queues nothing")
    func routeWithoutQueue() async throws {
        let down = try RefusingPort()
        let larder = try await Daemon.start(
            config: #"{"queue": {"backoffBase": "100ms", "backoffMax": "500ms"}}"#)
        let result = try await Curl.run(QueueConfig.write("POST", down.url("/orders"), body: "one"), via: larder)
        #expect(result.status == 502)
        #expect(result.proxyStatus?.error == "connection_refused")
        #expect(result.xCache == "BYPASS")
        #expect(try await QueueSnapshot.read(from: larder).requests.isEmpty)
        withExtendedLifetime(down) {}
    }

    @Test("a safe method on a queue route is never queued", arguments: ["GET", "HEAD", "OPTIONS"])
    func safeMethodOnQueueRoute(method: String) async throws {
        let down = try RefusingPort()
        let larder = try await Daemon.start(
            config: #"{"routes": [{"name": "everything", "match": {"host": "127.0.0.1"}, "queue": true}]}"#)
        let arguments = method == "HEAD" ? ["-I", down.url("/items")] : ["-X", method, down.url("/items")]
        let result = try await Curl.run(arguments, via: larder)
        #expect(result.status == 502)
        #expect(result.xCache != "QUEUED")
        #expect(try await QueueSnapshot.read(from: larder).requests.isEmpty)
        // The route does queue writes: the GET was left out for its method, not for its route.
        let write = try await Curl.run(QueueConfig.write("POST", down.url("/items"), body: "x"), via: larder)
        #expect(write.status == 202)
        withExtendedLifetime(down) {}
    }

    @Test("an origin's error answer is passed through, not queued")
    func errorAnswerNotQueued() async throws {
        let origin = try QueueOrigin()
        origin.answer(.status(503))
        try origin.up()
        let larder = try await Daemon.start(config: QueueConfig.writes())
        let result = try await Curl.run(QueueConfig.write("POST", origin.url("/busy"), body: "x"), via: larder)
        #expect(result.status == 503)
        #expect(result.bodyText == "answered 503\n")
        #expect(try await QueueSnapshot.read(from: larder).requests.isEmpty)
        #expect(origin.requests.count == 1)
    }

    @Test("a body over queue.maxBodySize is not queued (502), and is forwarded whole when the origin is up")
    func bodyOverLimit() async throws {
        let origin = try QueueOrigin()
        let larder = try await Daemon.start(config: QueueConfig.writes(maxBodySize: "1KiB"))
        let large = Array(repeating: UInt8(ascii: "L"), count: 1500)
        let arguments = ["-X", "POST", "-H", "Content-Type: text/plain", "--data-binary", "@-"]
        let refused = try await Curl.run(arguments + [origin.url("/big")], via: larder, stdin: large)
        #expect(refused.status == 502)
        #expect(refused.proxyStatus?.error == "connection_refused")
        #expect(try await QueueSnapshot.read(from: larder).requests.isEmpty)
        // At the limit exactly, it is kept.
        let small = Array(repeating: UInt8(ascii: "s"), count: 1024)
        let kept = try await Curl.run(arguments + [origin.url("/small")], via: larder, stdin: small)
        #expect(kept.status == 202)

        try origin.up()
        try await CachePoll.until("the small body delivered", timeout: .seconds(20)) {
            try await QueueSnapshot.read(from: larder).requests.isEmpty
        }
        let forwarded = try await Curl.run(arguments + [origin.url("/big")], via: larder, stdin: large)
        #expect(forwarded.status == 200)
        #expect(forwarded.bodyText == "answered 200\n")
        #expect(origin.requests.map(\.target) == ["/small", "/big"])
        #expect(origin.requests.map(\.body) == [small, large])
        #expect(origin.requests.last?.header("Idempotency-Key") == nil)
    }

    @Test("after a reload that raises queue.maxBodySize, a body over the running queue's limit still gets 502, not 500")
    func reloadedBodyLimit() async throws {
        let down = try RefusingPort()
        let larder = try await Daemon.start(config: QueueConfig.writes(maxBodySize: "1KiB"))
        let path = try #require(larder.configPath)
        try QueueConfig.writes(maxBodySize: "4KiB").write(toFile: path, atomically: true, encoding: .utf8)
        larder.signal(SIGHUP)
        try await larder.waitForLog(containing: "msg=reloaded")
        let body = Array(repeating: UInt8(ascii: "b"), count: 2000)
        let arguments = ["-X", "POST", "-H", "Content-Type: text/plain", "--data-binary", "@-", down.url("/big")]
        let result = try await Curl.run(arguments, via: larder, stdin: body)
        // The queue keeps the limit it was opened with: the body is answered as it would be without a queue.
        #expect(result.status == 502, "\(result.bodyText)")
        #expect(result.proxyStatus?.error == "connection_refused")
        #expect(try await QueueSnapshot.read(from: larder).requests.isEmpty)
        withExtendedLifetime(down) {}
    }
}
