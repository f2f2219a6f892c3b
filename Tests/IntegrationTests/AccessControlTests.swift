import Testing

/// Who may use Larder, where it may connect, and what it answers for itself.
@Suite("Endpoints and access control")
struct AccessControlTests {
    @Test("GET /_larder/health answers 200")
    func health() async throws {
        let larder = try await Daemon.start()
        let result = try await Curl.run(["http://127.0.0.1:\(larder.port)/_larder/health"], via: nil)
        #expect(result.exitCode == 0, "curl: \(result.stderr)")
        #expect(result.status == 200)
        #expect(result.bodyText == "ok\n")
    }

    @Test("any other origin-form path gets 400 with a hint on how to use Larder as a proxy")
    func notAProxyRequest() async throws {
        let larder = try await Daemon.start()
        let result = try await Curl.run(["http://127.0.0.1:\(larder.port)/some/page"], via: nil)
        #expect(result.status == 400)
        #expect(result.proxyStatus?.error == "http_request_error")
        #expect(result.bodyText.contains("http_proxy="))
        #expect(result.bodyText.contains("/some/page"))
    }

    @Test("a client outside allow gets 403 and its request never reaches the origin")
    func clientNotAllowed() async throws {
        let origin = try OriginServer { _ in .ok("secret") }
        let larder = try await Daemon.start(config: #"{"allow": ["10.0.0.0/8"]}"#)
        let result = try await Curl.get(origin.url("/x"), via: larder)
        #expect(result.status == 403)
        #expect(result.proxyStatus?.error == "http_request_denied")
        #expect(result.bodyText.contains("allow"))
        #expect(origin.connectionCount == 0)
    }

    @Test("the cloud metadata address (link-local) is refused with 403 destination_ip_prohibited")
    func linkLocalRefused() async throws {
        let larder = try await Daemon.start(config: #"{"timeouts": {"connect": "20s"}}"#)
        let started = ContinuousClock.now
        let result = try await Curl.get("http://169.254.169.254/latest/meta-data/", via: larder)
        #expect(result.status == 403)
        #expect(result.proxyStatus?.error == "destination_ip_prohibited")
        // Refused before connecting: an attempt would have waited for the 20 s connect timeout or failed otherwise.
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test("a denied destination range is refused before any connection is made")
    func deniedDestinationNeverConnects() async throws {
        let origin = try OriginServer { _ in .ok("should not be reached") }
        let larder = try await Daemon.start(config: #"{"denyDestinations": ["127.0.0.0/8"]}"#)
        let result = try await Curl.get(origin.url("/x"), via: larder)
        #expect(result.status == 403)
        #expect(result.proxyStatus?.error == "destination_ip_prohibited")
        #expect(origin.connectionCount == 0)
    }
}
