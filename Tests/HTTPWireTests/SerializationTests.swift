import HTTPWire
import Testing

private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

@Test("a response head is written as its status line and fields in order")
func responseHeadSerialized() {
    let head = ResponseHead(
        status: 200,
        headers: ["Content-Type": "text/plain", "Set-Cookie": "a=1", "set-cookie": "b=2", "Content-Length": "0"]
    )
    #expect(
        text(head.serialized())
            == "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nSet-Cookie: a=1\r\nset-cookie: b=2\r\nContent-Length: 0\r\n\r\n"
    )
}

@Test(
    "a status line keeps the space before an empty reason",
    arguments: [
        (ResponseHead(status: 299), "HTTP/1.1 299 \r\n\r\n"),
        (ResponseHead(version: .http1_0, status: 404), "HTTP/1.0 404 Not Found\r\n\r\n"),
        (ResponseHead(status: 502, reason: "Upstream Unreachable"), "HTTP/1.1 502 Upstream Unreachable\r\n\r\n"),
        (ResponseHead(status: 0), "HTTP/1.1 0 \r\n\r\n"),
        (ResponseHead(status: 7), "HTTP/1.1 7 \r\n\r\n"),
        (ResponseHead(status: 100), "HTTP/1.1 100 Continue\r\n\r\n"),
        (ResponseHead(version: HTTPVersion(major: 2, minor: 10), status: 1009), "HTTP/2.10 1009 \r\n\r\n"),
        (ResponseHead(status: -12), "HTTP/1.1 -12 \r\n\r\n"),
        (ResponseHead(status: Int.max), "HTTP/1.1 \(Int.max) \r\n\r\n"),
        (ResponseHead(status: Int.min), "HTTP/1.1 \(Int.min) \r\n\r\n"),
    ])
func statusLine(head: ResponseHead, expected: String) {
    #expect(text(head.serialized()) == expected)
}

@Test("a request head is written as its request line and fields in order")
func requestHeadSerialized() {
    let head = RequestHead(method: "GET", target: "/a?b", headers: ["Host": "example.com", "Accept": "*/*"])
    #expect(text(head.serialized()) == "GET /a?b HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\n\r\n")
}

@Test("CR, LF and NUL in a field are written as spaces, so they cannot inject a line")
func injectionNeutralised() {
    let head = ResponseHead(status: 200, headers: ["X-A": "a\r\nSet-Cookie: evil\u{0}"])
    #expect(text(head.serialized()) == "HTTP/1.1 200 OK\r\nX-A: a  Set-Cookie: evil \r\n\r\n")
}

@Test("CR, LF and NUL are neutralised in names and reasons too, and other bytes, UTF-8 included, are kept")
func injectionNeutralisedEverywhere() {
    let head = ResponseHead(
        status: 200, reason: "O\nK",
        headers: HTTPHeaders([HTTPField("X-\r", "caf\u{E9}\u{0}"), HTTPField("X-B", "\t\u{7F}\u{1F600}")]))
    #expect(text(head.serialized()) == "HTTP/1.1 200 O K\r\nX- : caf\u{E9} \r\nX-B: \t\u{7F}\u{1F600}\r\n\r\n")
    let request = RequestHead(method: "GE\rT", target: "/a\nb", version: .http1_0, headers: [:])
    #expect(text(request.serialized()) == "GE T /a b HTTP/1.0\r\n\r\n")
}

@Test("a serialized request head parses back to itself")
func requestHeadRoundTrip() {
    let head = RequestHead(
        method: "POST", target: "http://example.com/x", version: .http1_0,
        headers: ["Host": "example.com", "X-Repeat": "1", "x-repeat": "2", "Content-Length": "0"]
    )
    var parser = RequestParser()
    parser.append(head.serialized())
    #expect(parser.next() == .head(head, framing: .length(0)))
    #expect(parser.next() == .end)
}

@Test(
    "a chunk header is the size in lowercase hex and CRLF",
    arguments: [
        (0x1a2b, "1a2b\r\n"), (1, "1\r\n"), (15, "f\r\n"), (16, "10\r\n"), (0, "0\r\n"),
        (Int.max, "7fffffffffffffff\r\n"),
    ])
func chunkHeader(size: Int, expected: String) {
    #expect(text(ChunkedEncoding.chunkHeader(size: size)) == expected)
}

@Test("a body chunked with ChunkedEncoding parses back to the same bytes")
func chunkedRoundTrip() {
    let pieces = ["hello", " ", String(repeating: "x", count: 300)]
    var wire = Array("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
    for piece in pieces {
        wire += ChunkedEncoding.chunkHeader(size: piece.utf8.count) + Array(piece.utf8) + ChunkedEncoding.chunkTrailer
    }
    wire += ChunkedEncoding.lastChunk
    #expect(text(ChunkedEncoding.lastChunk) == "0\r\n\r\n")
    #expect(text(ChunkedEncoding.chunkTrailer) == "\r\n")
    let events = ParserVerifier.feed([wire[...]])
    #expect(events.dropFirst().first == .text(pieces.joined()))
    #expect(events.last == .end)
}
