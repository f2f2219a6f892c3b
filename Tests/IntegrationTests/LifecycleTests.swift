import Foundation
import Glibc
import Testing

/// Shutdown, descriptor hygiene and the access log.
@Suite("Daemon life cycle")
struct LifecycleTests {
    @Test("SIGTERM lets an in-flight response finish, refuses new connections, and exits 0")
    func drainOnSigterm() async throws {
        let origin = try OriginServer(always: OriginResponse(body: .bytes(Array("finished".utf8)), delay: .seconds(1)))
        let larder = try await Daemon.start(config: #"{"timeouts": {"drain": "30s"}}"#)
        let idle = try await RawClient.connect(port: larder.port)
        try await idle.send("GET /_larder/health HTTP/1.1\r\nHost: larder\r\n\r\n")
        #expect(try await idle.readResponse().status == 200)
        let inFlight = Task { try await Curl.get(origin.url("/slow"), via: larder) }
        try await Poll.until("the origin to receive the request") { origin.requests.count == 1 }

        let signalled = ContinuousClock.now
        larder.signal(SIGTERM)
        try await larder.waitForLog(containing: "stopping")
        // An idle keep-alive connection is closed at once rather than waited for.
        #expect(try await idle.readToEnd(timeout: .seconds(5)).isEmpty)
        let result = try await inFlight.value
        #expect(result.exitCode == 0, "curl: \(result.stderr)")
        #expect(result.status == 200)
        #expect(result.bodyText == "finished")
        let status = try await Poll.value("larder to exit", timeout: .seconds(15)) { larder.exitStatus }
        #expect(status == 0, "log:\n\(larder.log)")
        // Well inside the 30 s drain bound: Larder exits when its last connection is done.
        #expect(ContinuousClock.now - signalled < .seconds(10))
        await #expect(throws: HarnessError.self) {
            try await RawClient.connect(port: larder.port, timeout: .seconds(2))
        }
        withExtendedLifetime(origin) {}
    }

    @Test("a burst of requests of every kind leaves no file descriptor behind, and SIGTERM then exits 0")
    func noLeakedDescriptors() async throws {
        let origin = try OriginServer { request in
            switch request.path {
            case "/cut": OriginResponse(body: .generated(count: 200_000), fault: .cutBody(afterBytes: 1000))
            case "/garbage": OriginResponse(fault: .garbage)
            default: .ok("fine")
            }
        }
        let echo = try TCPEchoServer()
        let closed = try RefusingPort()
        let larder = try await Daemon.start(config: #"{"connectPorts": [\#(echo.port)]}"#)

        func burst() async throws {
            _ = try await Curl.get(origin.url("/ok"), via: larder)
            _ = try await Curl.get(origin.url("/cut"), via: larder)
            _ = try await Curl.get(origin.url("/garbage"), via: larder)
            _ = try await Curl.get(closed.url("/refused"), via: larder)
            _ = try await Curl.get("http://127.0.0.1:\(larder.port)/_larder/health", via: nil)
            _ = try await Curl.get("http://127.0.0.1:\(larder.port)/nope", via: nil)
            _ = try await RawClient.exchange(port: larder.port, send: "BAD\r\n\r\n", timeout: .seconds(5))
            let tunnel = try await RawClient.connect(port: larder.port)
            try await tunnel.send("CONNECT \(echo.authority) HTTP/1.1\r\nHost: \(echo.authority)\r\n\r\n")
            _ = try await TunnelTests.readHead(tunnel)
            try await tunnel.send("ping")
            _ = try await tunnel.read(count: 4)
            tunnel.close()
            // A client that goes away in the middle of a response.
            let quitter = try await RawClient.connect(port: larder.port)
            try await quitter.send("GET \(origin.url("/ok")) HTTP/1.1\r\nHost: x\r\n\r\n")
            quitter.close()
        }

        try await burst()
        let before = try await larder.settledFileDescriptorCount()
        for _ in 0..<5 { try await burst() }
        // libcurl may end up keeping one more or one fewer idle connection to the origin than after the
        // warm-up (which requests reused which connection depends on timing); a leak grows with the bursts.
        await larder.expectDescriptors(atMost: before + 1)
        #expect(try await larder.terminate() == 0)
        withExtendedLifetime((origin, echo, closed)) {}
    }

    @Test("every request gets one access log line with method, URL, status, bytes, duration, cache and route")
    func accessLog() async throws {
        let origin = try OriginServer { request in
            request.path == "/missing" ? OriginResponse(status: 404, body: .bytes(Array("nope".utf8))) : .ok("12345")
        }
        let larder = try await Daemon.start()
        let url = origin.url("/logged?q=1")
        _ = try await Curl.get(url, via: larder)
        _ = try await Curl.run(["-X", "POST", "--data-binary", "x", origin.url("/missing")], via: larder)
        _ = try await Curl.get("http://nonexistent.invalid/", via: larder)
        _ = try await RawClient.exchange(
            port: larder.port, send: "GET ftp://127.0.0.1/file HTTP/1.1\r\nHost: x\r\n\r\n")

        let lines = try await Poll.value("four access lines") { () -> [AccessLogLine]? in
            let lines = larder.accessLines
            return lines.count >= 4 ? lines : nil
        }
        #expect(lines.count == 4)
        let ok = try #require(lines.first { $0["url"] == url })
        #expect(ok["method"] == "GET")
        #expect(ok["status"] == "200")
        #expect(ok["bytes"] == "5")
        #expect(ok["ms"].flatMap(Double.init) != nil)
        #expect(ok["cache"] != nil)
        #expect(ok["route"] != nil)
        let missing = try #require(lines.first { $0["url"] == origin.url("/missing") })
        #expect(missing["method"] == "POST")
        #expect(missing["status"] == "404")
        #expect(missing["bytes"] == "4")
        let failed = try #require(lines.first { $0["url"]?.contains("nonexistent.invalid") == true })
        #expect(failed["status"] == "502")
        #expect(failed["error"] == "dns_error")
        // A request refused for its target still logs the target it asked for.
        let refused = try #require(lines.last)
        #expect(refused["url"] == "ftp://127.0.0.1/file")
        #expect(refused["status"] == "400")
    }
}
