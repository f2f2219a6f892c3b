import Foundation
import Glibc
import Testing

/// CONNECT opens a blind tunnel, only to allowed ports (RFC 9110 §9.3.6).
@Suite("CONNECT tunnels")
struct TunnelTests {
    @Test("CONNECT to an allowed port carries bytes both ways and passes on the half-close")
    func tunnelToEcho() async throws {
        let echo = try TCPEchoServer()
        let larder = try await Daemon.start(config: #"{"connectPorts": [\#(echo.port)]}"#)
        let client = try await RawClient.connect(port: larder.port)
        try await client.send("CONNECT \(echo.authority) HTTP/1.1\r\nHost: \(echo.authority)\r\n\r\n")
        let head = try await Self.readHead(client)
        #expect(head.hasPrefix("HTTP/1.1 200 "), "reply: \(head)")

        let payload = Payload.pattern(1024 * 1024)
        try await client.send(payload)
        #expect(Payload.same(try await client.read(count: payload.count), payload))
        try await client.send([0, 13, 10, 255])
        #expect(try await client.read(count: 4) == [0, 13, 10, 255])
        client.shutdownWrite()
        #expect(try await client.readToEnd(timeout: .seconds(5)).isEmpty)
        #expect(echo.connectionCount == 1)
    }

    @Test("an open tunnel holds its place under limits.maxConnections until it closes")
    func tunnelsCountAgainstTheLimit() async throws {
        let echo = try TCPEchoServer()
        let larder = try await Daemon.start(
            config: #"{"connectPorts": [\#(echo.port)], "limits": {"maxConnections": 2}}"#)
        let health = "GET /_larder/health HTTP/1.1\r\nHost: larder\r\n\r\n"
        let tunnel = try await RawClient.connect(port: larder.port)
        try await tunnel.send("CONNECT \(echo.authority) HTTP/1.1\r\nHost: \(echo.authority)\r\n\r\n")
        #expect(try await Self.readHead(tunnel).hasPrefix("HTTP/1.1 200 "))
        let second = try await RawClient.connect(port: larder.port)
        try await second.send(health)
        #expect(try await second.readResponse().status == 200)

        // The tunnel and the second client fill the two places.
        let third = try await RawClient.connect(port: larder.port)
        try await third.send(health)
        #expect(try await third.readResponse().status == 503)

        tunnel.shutdownWrite()
        #expect(try await tunnel.readToEnd(timeout: .seconds(5)).isEmpty)
        // Each probe is a new client asking for health, served once the tunnel's place is free.
        let deadline = ContinuousClock.now + .seconds(10)
        var served = false
        while !served && ContinuousClock.now < deadline {
            let probe = "GET /_larder/health HTTP/1.1\r\nHost: larder\r\nConnection: close\r\n\r\n"
            let reply = try? await RawClient.exchange(port: larder.port, send: probe, timeout: .seconds(2))
            served = reply?.hasPrefix("HTTP/1.1 200 ") ?? false
            if !served { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(served, "no client was served after the tunnel closed")
        withExtendedLifetime(second) {}
    }

    @Test("a tunnel silent both ways for timeouts.tunnelIdle is closed, one carrying bytes stays open")
    func idleTunnelCloses() async throws {
        let echo = try TCPEchoServer()
        let larder = try await Daemon.start(
            config: #"{"connectPorts": [\#(echo.port)], "timeouts": {"tunnelIdle": "1500ms"}}"#)
        let connect = "CONNECT \(echo.authority) HTTP/1.1\r\nHost: \(echo.authority)\r\n\r\n"

        let silent = try await RawClient.connect(port: larder.port)
        // Timed from before the tunnel exists, so a slow machine can only make it look later, never earlier.
        let asked = ContinuousClock.now
        try await silent.send(connect)
        #expect(try await Self.readHead(silent).hasPrefix("HTTP/1.1 200 "))
        #expect(try await silent.readToEnd(timeout: .seconds(10)).isEmpty)
        let lasted = ContinuousClock.now - asked
        #expect(lasted >= .milliseconds(1500), "closed after \(lasted)")

        // A byte each way every 100 ms for longer than the limit: never idle that long, so never closed.
        let busy = try await RawClient.connect(port: larder.port)
        try await busy.send(connect)
        #expect(try await Self.readHead(busy).hasPrefix("HTTP/1.1 200 "))
        for round in 0..<20 {
            try await busy.send([UInt8(round)])
            #expect(try await busy.read(count: 1, timeout: .seconds(2)) == [UInt8(round)])
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    @Test("curl --proxytunnel reaches an origin through a CONNECT tunnel, as https_proxy would")
    func curlThroughTunnel() async throws {
        let origin = try OriginServer { request in .ok("tunnelled \(request.target)") }
        let larder = try await Daemon.start(config: #"{"connectPorts": [\#(origin.port)]}"#)
        let result = try await Curl.run(["--proxytunnel", origin.url("/t?x=1")], via: larder)
        #expect(result.exitCode == 0, "curl: \(result.stderr)")
        #expect(result.bodyText == "tunnelled /t?x=1")
        // In a tunnel the origin sees origin-form requests straight from curl, with no Via from Larder.
        #expect(origin.requests.first?.header("Via") == nil)
    }

    @Test("CONNECT to a port not in connectPorts gets 403 and never reaches the destination")
    func forbiddenPort() async throws {
        let echo = try TCPEchoServer()
        let larder = try await Daemon.start()
        let client = try await RawClient.connect(port: larder.port)
        try await client.send("CONNECT \(echo.authority) HTTP/1.1\r\nHost: \(echo.authority)\r\n\r\n")
        let response = try await client.readResponse()
        #expect(response.status == 403)
        #expect(response.proxyStatus?.error == "http_request_denied")
        #expect(response.bodyText.contains("connectPorts"))
        #expect(echo.connectionCount == 0)
    }

    @Test("bytes a client sends right behind the CONNECT head reach the destination")
    func bytesBehindTheHead() async throws {
        let echo = try TCPEchoServer()
        let larder = try await Daemon.start(config: #"{"connectPorts": [\#(echo.port)]}"#)
        let client = try await RawClient.connect(port: larder.port)
        try await client.send("CONNECT \(echo.authority) HTTP/1.1\r\nHost: \(echo.authority)\r\n\r\nearly bytes")
        let head = try await Self.readHead(client)
        #expect(head.hasPrefix("HTTP/1.1 200 "), "reply: \(head)")
        #expect(try await client.read(count: 11) == Array("early bytes".utf8))
        withExtendedLifetime(echo) {}
    }

    /// A CONNECT that cannot be opened, and the answer it must get.
    struct Failure: Sendable, CustomTestStringConvertible {
        var name: String
        var status: Int
        var error: String
        var testDescription: String { name }
    }

    @Test(
        "a CONNECT that cannot be opened gets a clear error, and the connection stays usable",
        arguments: [
            Failure(name: "refused", status: 502, error: "connection_refused"),
            Failure(name: "unresolvable", status: 502, error: "dns_error"),
            Failure(name: "link-local", status: 403, error: "destination_ip_prohibited"),
            Failure(name: "Larder itself", status: 508, error: "proxy_loop_detected"),
            Failure(name: "never accepting", status: 504, error: "connection_timeout"),
        ]
    )
    func connectFailures(failure: Failure) async throws {
        let closed = try RefusingPort()
        let silent = try SilentListener()
        let larder = try await Daemon.start(
            config: #"{"connectPorts": [\#(closed.port), \#(silent.port), 443, 80], "timeouts": {"connect": "1s"}}"#)
        let authority: String
        switch failure.name {
        case "refused": authority = "127.0.0.1:\(closed.port)"
        case "unresolvable": authority = "nonexistent.invalid:443"
        case "link-local": authority = "169.254.169.254:80"
        case "never accepting": authority = silent.authority
        default:
            // Larder's own port is known only now: allow it (SIGHUP reloads), so only the loop check refuses it.
            authority = "127.0.0.1:\(larder.port)"
            let path = try #require(larder.configPath)
            try #"{"connectPorts": [\#(larder.port)]}"#.write(toFile: path, atomically: true, encoding: .utf8)
            larder.signal(SIGHUP)
            try await larder.waitForLog(containing: "msg=reloaded")
        }
        let client = try await RawClient.connect(port: larder.port)
        try await client.send("CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\n\r\n")
        let response = try await client.readResponse(timeout: .seconds(20))
        #expect(response.status == failure.status)
        #expect(response.proxyStatus?.error == failure.error)

        // Nothing about the failure spoils the connection for the next request.
        try await client.send("GET /_larder/health HTTP/1.1\r\nHost: larder\r\n\r\n")
        #expect(try await client.readResponse().status == 200)
        withExtendedLifetime((silent, closed)) {}
    }

    /// Reads up to the blank line that ends a CONNECT reply (which has no body framing of its own).
    static func readHead(_ client: RawClient) async throws -> String {
        var received: [UInt8] = []
        while !received.ends(with: Array("\r\n\r\n".utf8)) {
            let bytes = try await client.read(count: 1)
            received += bytes
        }
        return String(decoding: received, as: UTF8.self)
    }
}

extension Array where Element: Equatable {
    fileprivate func ends(with suffix: [Element]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
