import Foundation
import Testing

/// When the origin cannot give a complete response, the client gets a clear error with its RFC 9209 type,
/// or, once a response has begun, a cut connection.
@Suite("Upstream failures")
struct UpstreamFailureTests {
    @Test("a host name that does not resolve gets 502 dns_error")
    func dnsFailure() async throws {
        let larder = try await Daemon.start()
        let result = try await Curl.get("http://nonexistent.invalid/", via: larder)
        #expect(result.status == 502)
        #expect(result.proxyStatus?.error == "dns_error")
        #expect(result.proxyStatus?.name == "larder")
        #expect(result.bodyText.contains("nonexistent.invalid"))
    }

    @Test("a closed port gets 502 connection_refused")
    func connectionRefused() async throws {
        let closed = try RefusingPort()
        let larder = try await Daemon.start()
        let result = try await Curl.get(closed.url("/"), via: larder)
        #expect(result.status == 502)
        #expect(result.proxyStatus?.error == "connection_refused")
        withExtendedLifetime(closed) {}
    }

    @Test("an origin that never accepts the connection gets 504 connection_timeout after the connect timeout")
    func connectTimeout() async throws {
        let silent = try SilentListener()
        let larder = try await Daemon.start(config: #"{"timeouts": {"connect": "1s"}}"#)
        let started = ContinuousClock.now
        let result = try await Curl.get("http://\(silent.authority)/", via: larder)
        #expect(result.status == 504)
        #expect(result.proxyStatus?.error == "connection_timeout")
        #expect(ContinuousClock.now - started < .seconds(10))
        withExtendedLifetime(silent) {}
    }

    @Test("an origin that never answers gets 504 after the read timeout")
    func readTimeout() async throws {
        let origin = try OriginServer(always: OriginResponse(fault: .stall))
        let larder = try await Daemon.start(config: #"{"timeouts": {"read": "1s"}}"#)
        let started = ContinuousClock.now
        let result = try await Curl.get(origin.url("/stall"), via: larder)
        #expect(result.status == 504)
        #expect(result.proxyStatus?.error == "http_response_timeout")
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(origin.requests.count == 1)
    }

    @Test("a client that goes away while the origin is silent frees the upstream connection at once")
    func clientLeavesDuringSilence() async throws {
        let origin = try OriginServer(always: OriginResponse(fault: .stall))
        let larder = try await Daemon.start()
        _ = try await Curl.get("http://127.0.0.1:\(larder.port)/_larder/health", via: nil)
        let before = try await larder.settledFileDescriptorCount()
        let client = try await RawClient.connect(port: larder.port)
        try await client.send("GET \(origin.url("/wait")) HTTP/1.1\r\nHost: x\r\n\r\n")
        try await Poll.until("the origin to receive the request") { origin.requests.count == 1 }
        client.close()
        // Well before the 60 s read timeout: neither the client socket nor the upstream one remains.
        await larder.expectDescriptors(atMost: before, timeout: .seconds(5))
        let line = try await larder.waitForLog(containing: "msg=access", occurrence: 2)
        #expect(AccessLogLine(line)?["status"] == "499")
    }

    @Test(
        "an origin that answers with something that is not HTTP gets 502",
        arguments: [OriginResponse.Fault.garbage, .closeWithoutResponse]
    )
    func invalidResponse(fault: OriginResponse.Fault) async throws {
        let origin = try OriginServer(always: OriginResponse(fault: fault))
        let larder = try await Daemon.start()
        let result = try await Curl.get(origin.url("/bad"), via: larder)
        #expect(result.status == 502)
        let error = try #require(result.proxyStatus?.error)
        #expect(["http_protocol_error", "connection_terminated", "http_response_incomplete"].contains(error))
        withExtendedLifetime(origin) {}
    }

    @Test("an origin whose header section is over 64 KiB gets 502")
    func hugeResponseHead() async throws {
        let padding = (0..<70).map { ("X-Padding-\($0)", String(repeating: "p", count: 1000)) }
        let origin = try OriginServer(always: OriginResponse(headers: padding, body: .bytes(Array("x".utf8))))
        let larder = try await Daemon.start()
        let result = try await Curl.get(origin.url("/huge"), via: larder)
        #expect(result.status == 502)
        #expect(result.proxyStatus?.error == "http_response_header_section_size")
        withExtendedLifetime(origin) {}
    }

    @Test(
        "an origin that dies mid-body makes curl fail, never see a complete response",
        arguments: [
            OriginResponse(body: .generated(count: 1_000_000), fault: .cutBody(afterBytes: 300_000)),
            OriginResponse(
                body: .chunked([Array(repeating: 0x61, count: 50_000), Array(repeating: 0x62, count: 50_000)]),
                fault: .cutBody(afterBytes: 70_000)),
        ]
    )
    func originDiesMidBody(response: OriginResponse) async throws {
        let origin = try OriginServer(always: response)
        let larder = try await Daemon.start()
        let result = try await Curl.get(origin.url("/cut"), via: larder)
        #expect([18, 56].contains(result.exitCode), "curl exit \(result.exitCode): \(result.stderr)")
        #expect(result.body.count < response.body.count)
        withExtendedLifetime(origin) {}
    }

    @Test("a failed HEAD gets the error's head without a body, and the connection carries on")
    func failedHead() async throws {
        let closed = try RefusingPort()
        let larder = try await Daemon.start()
        let client = try await RawClient.connect(port: larder.port)
        try await client.send("HEAD \(closed.url("/")) HTTP/1.1\r\nHost: x\r\n\r\n")
        let failed = try await client.readResponse(method: "HEAD")
        #expect(failed.status == 502)
        #expect(failed.proxyStatus?.error == "connection_refused")
        try await client.send("GET /_larder/health HTTP/1.1\r\nHost: larder\r\n\r\n")
        let next = try await client.readResponse()
        #expect(next.status == 200)
        #expect(next.bodyText == "ok\n")
        withExtendedLifetime(closed) {}
    }

    @Test("an error answer is JSON when the client accepts application/json")
    func jsonErrorBody() async throws {
        let closed = try RefusingPort()
        let larder = try await Daemon.start()
        let result = try await Curl.get(closed.url("/"), via: larder, headers: ["Accept: application/json"])
        #expect(result.status == 502)
        #expect(result.header("Content-Type")?.hasPrefix("application/json") == true)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.body)) as? [String: Any])
        #expect(object["status"] as? Int == 502)
        #expect(object["error"] as? String == "connection_refused")
        #expect((object["message"] as? String)?.isEmpty == false)
        withExtendedLifetime(closed) {}
    }

    @Test("an https:// URL is fetched over verified TLS when tls.caFile names the origin's CA")
    func trustedCertificate() async throws {
        guard let response = try await Self.fetchFromTLSOrigin(trustingItsCertificate: true) else { return }
        #expect(response.status == 200, "\(response.bodyText)")
        // openssl s_server -www answers with a page describing the TLS session it served.
        #expect(response.bodyText.contains("Ciphers supported"), "\(response.bodyText)")
    }

    @Test("an https:// URL to an origin with an untrusted certificate gets 502 tls_certificate_error")
    func untrustedCertificate() async throws {
        guard let response = try await Self.fetchFromTLSOrigin(trustingItsCertificate: false) else { return }
        #expect(response.status == 502)
        #expect(response.proxyStatus?.error == "tls_certificate_error")
    }

    /// `GET https://127.0.0.1:PORT/` through a new Larder from a new local `openssl s_server`, whose self-signed
    /// certificate Larder is given as `tls.caFile` or not; nil (skipped, with the reason printed) without openssl.
    private static func fetchFromTLSOrigin(trustingItsCertificate trusts: Bool) async throws -> RawResponse? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") else {
            print("skipped: /usr/bin/openssl is missing, so no local TLS origin can be started")
            return nil
        }
        let server = try await TLSOrigin.start()
        let larder = try await Daemon.start(config: trusts ? #"{"tls": {"caFile": "\#(server.certificatePath)"}}"# : nil)
        let client = try await RawClient.connect(port: larder.port)
        try await client.send(
            "GET https://127.0.0.1:\(server.port)/ HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n\r\n")
        let response = try await client.readResponse(timeout: .seconds(20))
        withExtendedLifetime(server) {}
        return response
    }
}
