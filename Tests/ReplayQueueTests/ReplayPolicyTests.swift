import HTTPWire
import Testing
import Upstream

@testable import ReplayQueue

@Suite("Replay decisions (pure)")
struct ReplayPolicyTests {
    static let settings = QueueSettings(maxAttempts: 10, maxAgeSeconds: 3_600, backoffBase: 1_000, backoffMax: 300_000)
    static let now: Int64 = 1_700_000_000_000

    @Test(
        "back-off doubles from the base after each failure and stops at the cap",
        arguments: [
            (1, 1_000), (2, 2_000), (3, 4_000), (4, 8_000), (9, 256_000), (10, 300_000), (11, 300_000),
            (1_000, 300_000),
        ] as [(Int, Int64)])
    func backoffDoubles(failures: Int, expected: Int64) {
        #expect(ReplayPolicy.backoff(failures: failures, settings: Self.settings, jitter: 0) == expected)
    }

    @Test("jitter shortens a wait by at most a tenth and never lengthens it past the cap", arguments: [1, 5, 40])
    func jitterIsSmall(failures: Int) {
        let plain = ReplayPolicy.backoff(failures: failures, settings: Self.settings, jitter: 0)
        for jitter in [0.25, 0.5, 0.999] {
            let jittered = ReplayPolicy.backoff(failures: failures, settings: Self.settings, jitter: jitter)
            #expect(jittered <= plain)
            #expect(jittered >= plain - plain / 10)
        }
    }

    @Test("a new request is first sent one back-off base after it was queued")
    func firstAttempt() {
        #expect(ReplayPolicy.firstAttempt(queuedAt: Self.now, settings: Self.settings) == Self.now + 1_000)
    }

    @Test(
        "any answer but 401, 403 and the try-later statuses delivers",
        arguments: [200, 201, 204, 301, 400, 404, 409, 422, 500, 501])
    func answersDeliver(status: Int) {
        let verdict = ReplayPolicy.verdict(
            after: .answered(status: status), attempts: 1, ageFrom: Self.now, now: Self.now, settings: Self.settings,
            jitter: 0)
        #expect(verdict == .deliver(status: status))
    }

    @Test("408, 429, 502, 503 and 504 mean not handled: retried with back-off", arguments: [408, 429, 502, 503, 504])
    func tryLaterRetries(status: Int) {
        let verdict = ReplayPolicy.verdict(
            after: .answered(status: status), attempts: 1, ageFrom: Self.now, now: Self.now, settings: Self.settings,
            jitter: 0)
        guard case .retry(let at, let error) = verdict else {
            Issue.record("expected a retry, got \(verdict)")
            return
        }
        #expect(at == Self.now + 1_000)
        #expect(error.contains("\(status)"))
    }

    @Test(
        "401 and 403 hold the origin, with the status as the reason",
        arguments: [(401, "401 Unauthorized"), (403, "403 Forbidden")])
    func credentialsHold(status: Int, reason: String) {
        let verdict = ReplayPolicy.verdict(
            after: .answered(status: status), attempts: 3, ageFrom: Self.now, now: Self.now, settings: Self.settings,
            jitter: 0)
        #expect(verdict == .hold(reason: reason, status: status))
    }

    @Test(
        "a send with no answer is retried after the back-off, with the error kept",
        arguments: [
            UpstreamError.Kind.connectionRefused, .dnsError, .connectionTimeout, .responseTimeout,
            .connectionTerminated, .tlsCertificateError,
        ])
    func failuresRetry(kind: UpstreamError.Kind) {
        let verdict = ReplayPolicy.verdict(
            after: .failed(UpstreamError(kind, details: "it broke")), attempts: 3, ageFrom: Self.now, now: Self.now,
            settings: Self.settings, jitter: 0)
        #expect(verdict == .retry(at: Self.now + 4_000, error: "\(kind.rawValue): it broke"))
    }

    @Test("the maxAttempts-th send with no answer dead-letters the request with the error")
    func lastAttemptDeadLetters() {
        let failure = AttemptOutcome.failed(UpstreamError(.connectionRefused, details: "refused"))
        let ninth = ReplayPolicy.verdict(
            after: failure, attempts: 9, ageFrom: Self.now, now: Self.now, settings: Self.settings, jitter: 0)
        let tenth = ReplayPolicy.verdict(
            after: failure, attempts: 10, ageFrom: Self.now, now: Self.now, settings: Self.settings, jitter: 0)
        #expect(ninth == .retry(at: Self.now + 256_000, error: "connection_refused: refused"))
        #expect(tenth == .deadLetter(reason: "no answer after 10 attempts", error: "connection_refused: refused"))
    }

    @Test("a failed send older than maxAge dead-letters the request")
    func oldFailureDeadLetters() {
        let verdict = ReplayPolicy.verdict(
            after: .failed(UpstreamError(.dnsError, details: "no such host")), attempts: 1,
            ageFrom: Self.now - 3_600_001, now: Self.now, settings: Self.settings, jitter: 0)
        #expect(verdict == .deadLetter(reason: "queued longer than 3600 s", error: "dns_error: no such host"))
    }

    @Test(
        "an address Larder refuses to connect to dead-letters at once",
        arguments: [UpstreamError.Kind.destinationIPProhibited, .loopDetected])
    func refusedAddressIsDead(kind: UpstreamError.Kind) {
        let verdict = ReplayPolicy.verdict(
            after: .failed(UpstreamError(kind, details: "no")), attempts: 1, ageFrom: Self.now, now: Self.now,
            settings: Self.settings, jitter: 0)
        guard case .deadLetter = verdict else {
            Issue.record("expected a dead letter, got \(verdict)")
            return
        }
    }

    @Test("before a send, a request is expired by its attempts or its age, not otherwise")
    func expiryBeforeSending() {
        let settings = Self.settings
        #expect(
            ReplayPolicy.expiry(attempts: 9, ageFrom: Self.now - 3_600_000, now: Self.now, settings: settings) == nil)
        #expect(ReplayPolicy.expiry(attempts: 10, ageFrom: Self.now, now: Self.now, settings: settings) != nil)
        #expect(
            ReplayPolicy.expiry(attempts: 0, ageFrom: Self.now - 3_600_001, now: Self.now, settings: settings) != nil)
    }
}

@Suite("What a replay sends")
struct ReplayRequestTests {
    static func queued(headers: HTTPHeaders) -> QueuedRequest {
        QueuedRequest(
            id: "7f1c", origin: "http://example.com:80", method: "PUT", url: "http://example.com/a", headers: headers,
            body: Array("x".utf8), route: "api", enqueuedAt: 0, nextAttemptAt: 0)
    }

    @Test("the queue id is added as Idempotency-Key, after the stored fields")
    func keyAdded() {
        let request = Self.queued(headers: ["Content-Type": "text/plain"]).upstreamRequest(timeouts: UpstreamTimeouts())
        #expect(
            request.headers.fields == [HTTPField("Content-Type", "text/plain"), HTTPField("Idempotency-Key", "7f1c")])
        #expect(request.body == .bytes(Array("x".utf8)))
        #expect(request.method == "PUT")
        #expect(!request.paced)
    }

    @Test("a client's own Idempotency-Key is sent as it is, and only once")
    func clientKeyKept() {
        let queued = Self.queued(headers: ["idempotency-key": "client-1"])
        let request = queued.upstreamRequest(timeouts: UpstreamTimeouts())
        #expect(request.headers.values("Idempotency-Key") == ["client-1"])
        #expect(queued.idempotencyKey == "client-1")
    }

    @Test("hop-by-hop fields, Host, Content-Length and Expect are not kept for a replay")
    func replayableFields() {
        let headers: HTTPHeaders = [
            "Host": "example.com", "Connection": "keep-alive, X-Trace", "X-Trace": "1", "Keep-Alive": "timeout=5",
            "Proxy-Authorization": "Basic eA==", "Content-Length": "1", "Expect": "100-continue",
            "Authorization": "Bearer t", "Content-Type": "application/json", "X-Repeat": "a", "x-repeat": "b",
        ]
        #expect(
            headers.replayable.fields == [
                HTTPField("Authorization", "Bearer t"), HTTPField("Content-Type", "application/json"),
                HTTPField("X-Repeat", "a"), HTTPField("x-repeat", "b"),
            ])
    }

    @Test("stored header fields come back in order, repeats, empty values and non-ASCII text included")
    func headerCodecRoundTrip() {
        let headers = HTTPHeaders([
            HTTPField("A", "1"), HTTPField("a", ""), HTTPField("B", "\"quoted\", é, \\ ,"), HTTPField("A", "2"),
        ])
        #expect(HeaderCodec.decode(HeaderCodec.encode(headers)) == headers)
        #expect(HeaderCodec.decode("[[\"only-a-name\"]]") == nil)
    }

    @Test(
        "an origin is scheme://host:port, the port always written",
        arguments: [
            ("http://Example.com/a", "http://example.com:80"), ("http://example.com:80/", "http://example.com:80"),
            ("https://example.com/x?y", "https://example.com:443"), ("http://[::1]:8080/", "http://[::1]:8080"),
        ])
    func originKey(url: String, origin: String) throws {
        let parsed = try #require(AbsoluteURL(string: url))
        #expect(parsed.queueOrigin == origin)
    }
}
