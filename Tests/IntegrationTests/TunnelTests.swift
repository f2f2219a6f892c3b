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
        #expect(try await client.read(count: payload.count) == payload)
        try await client.send([0, 13, 10, 255])
        #expect(try await client.read(count: 4) == [0, 13, 10, 255])
        client.shutdownWrite()
        #expect(try await client.readToEnd(timeout: .seconds(5)).isEmpty)
        #expect(echo.connectionCount == 1)
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
