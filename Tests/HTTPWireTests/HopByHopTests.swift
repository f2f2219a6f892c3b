import HTTPWire
import Testing

@Test(
    "each hop-by-hop field is removed whatever its case",
    arguments: [
        "Connection", "Keep-Alive", "Proxy-Connection", "Proxy-Authorization", "Proxy-Authenticate", "TE", "Trailer",
        "Transfer-Encoding", "Upgrade", "connection", "KEEP-ALIVE", "te",
    ])
func hopByHopFieldRemoved(name: String) {
    let headers: HTTPHeaders = ["Host": "a", name: "x", "Accept": "*/*"]
    #expect(headers.removingHopByHop() == ["Host": "a", "Accept": "*/*"])
}

@Test("fields named by Connection are removed, the rest keep their order and repeats")
func connectionNamedFieldsRemoved() {
    let headers: HTTPHeaders = [
        "Connection": "X-Secret, close", "Host": "a", "x-secret": "1", "Set-Cookie": "a", "connection": "X-Other",
        "X-Other": "2", "Set-Cookie": "b", "Keep-Alive": "timeout=5", "Close": "is a field name too",
    ]
    #expect(headers.removingHopByHop() == ["Host": "a", "Set-Cookie": "a", "Set-Cookie": "b"])
}

@Test("end-to-end fields are all kept")
func endToEndKept() {
    let headers: HTTPHeaders = ["Host": "a", "Cache-Control": "max-age=5", "Authorization": "Bearer x"]
    #expect(headers.removingHopByHop() == headers)
}

@Test(
    "fields as long as a hop-by-hop name are kept",
    arguments: ["TK", "Referer", "Expires", "Set-Cookie", "Content-MD", "Content-Encoding", "If-Modified-Since",
        "Proxy-Status-Extra", "Content-Disposition"])
func sameLengthFieldKept(name: String) {
    let headers: HTTPHeaders = ["Host": "a", name: "x"]
    #expect(headers.removingHopByHop() == headers)
}

@Test("a caller's own rule removes more fields in the same pass")
func callerRuleRemovesMore() {
    let headers: HTTPHeaders = ["Proxy-Status": "x", "Connection": "close", "ETag": "\"1\"", "proxy-foo": "y"]
    #expect(headers.removingHopByHop(andFieldsWhere: { $0.hasPrefixIgnoringASCIICase("proxy-") }) == ["ETag": "\"1\""])
}
