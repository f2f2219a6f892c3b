import CachePolicy
import HTTPWire
import Testing

@Suite("RFC 9111 §3.1 storing header fields")
struct StorableHeadersTests {
    static let names: [(String, Bool)] = [
        ("Content-Type", true),
        ("Set-Cookie", true),
        ("Cache-Control", true),
        ("ETag", true),
        ("Age", true),
        ("Connection", false),
        ("Keep-Alive", false),
        ("Transfer-Encoding", false),
        ("TE", false),
        ("Trailer", false),
        ("Upgrade", false),
        ("Proxy-Connection", false),
        ("Proxy-Authenticate", false),
        ("Proxy-Authentication-Info", false),
        ("Proxy-Authorization", false),
        ("Proxy-Status", false),
        ("proxy-anything", false),
    ]

    @Test(
        "hop-by-hop and Proxy-* fields are never stored; Age is kept for the age calculation (§3.1, §4.2.3)",
        arguments: names)
    func storesField(name: String, stored: Bool) {
        let headers = RFC9111.storableHeaders(response(200, ["\(name): x", "X-Other: y"]))
        #expect(headers.contains(name) == stored)
        #expect(headers.contains("X-Other"))
    }

    @Test("fields named by Connection are not stored, and the rest keep their order and repeats (§3.1)")
    func connectionNamedFields() {
        let headers = RFC9111.storableHeaders(
            response(
                200,
                [
                    "Set-Cookie: a=1", "Connection: close, X-Hop", "X-Hop: h", "Content-Type: text/plain",
                    "Set-Cookie: b=2",
                ])
        )
        #expect(lines(headers) == ["Set-Cookie: a=1", "Content-Type: text/plain", "Set-Cookie: b=2"])
    }
}
