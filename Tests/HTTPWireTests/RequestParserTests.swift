import HTTPWire
import Testing

private let small = RequestParser.Limits(maxRequestLineBytes: 32, maxHeaderBytes: 64, maxHeaderCount: 3)

private let validRequests: [ParserFixture] = [
    ParserFixture(
        "GET in absolute-form, as a client sends it to a proxy",
        "GET http://example.com/a?b=1 HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\n\r\n",
        [.head("GET", "http://example.com/a?b=1", .http1_1, ["Host": "example.com", "Accept": "*/*"]), .end]
    ),
    ParserFixture(
        "POST with a Content-Length body",
        "POST /form HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\nhello world",
        [
            .head("POST", "/form", .http1_1, ["Host": "a", "Content-Length": "11"], framing: .length(11)),
            .text("hello world"), .end,
        ]
    ),
    ParserFixture(
        "Content-Length 0 ends the request right after its head",
        "POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n",
        [.head("POST", "/", .http1_1, ["Content-Length": "0"], framing: .length(0)), .end]
    ),
    ParserFixture(
        "a list of identical Content-Length values is one length",
        "PUT / HTTP/1.1\r\nContent-Length: 3, 3\r\nContent-Length: 3\r\n\r\nabc",
        [
            .head("PUT", "/", .http1_1, ["Content-Length": "3, 3", "Content-Length": "3"], framing: .length(3)),
            .text("abc"), .end,
        ]
    ),
    ParserFixture(
        "a chunked body is de-chunked; extensions and trailer fields are dropped",
        "POST /up HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5;name=value\r\nhello\r\n6 ; a ; b=\"c\"\r\n world\r\n0\r\nExpires: never\r\nX-Sum: 1\r\n\r\n",
        [
            .head("POST", "/up", .http1_1, ["Transfer-Encoding": "chunked"], framing: .chunked),
            .text("hello world"), .end,
        ]
    ),
    ParserFixture(
        "chunk sizes are hex in either case, with leading zeros",
        "POST / HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n00A\r\n0123456789\r\na\r\nabcdefghij\r\n0\r\n\r\n",
        [
            .head("POST", "/", .http1_1, ["Transfer-Encoding": "Chunked"], framing: .chunked),
            .text("0123456789abcdefghij"), .end,
        ]
    ),
    ParserFixture(
        "an empty chunked body is just the last chunk",
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        [.head("POST", "/", .http1_1, ["Transfer-Encoding": "chunked"], framing: .chunked), .end]
    ),
    ParserFixture(
        "pipelined requests are parsed one after another",
        "GET /1 HTTP/1.1\r\nHost: a\r\n\r\n"
            + "POST /2 HTTP/1.1\r\nContent-Length: 2\r\n\r\nok"
            + "POST /3 HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n"
            + "GET /4 HTTP/1.1\r\n\r\n",
        [
            .head("GET", "/1", .http1_1, ["Host": "a"]), .end,
            .head("POST", "/2", .http1_1, ["Content-Length": "2"], framing: .length(2)), .text("ok"), .end,
            .head("POST", "/3", .http1_1, ["Transfer-Encoding": "chunked"], framing: .chunked), .text("hi"), .end,
            .head("GET", "/4"), .end,
        ]
    ),
    ParserFixture(
        "an HTTP/1.0 request keeps its version",
        "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
        [.head("GET", "/", .http1_0, ["Connection": "keep-alive"]), .end]
    ),
    ParserFixture(
        "a higher HTTP/1 minor version is accepted",
        "GET / HTTP/1.2\r\n\r\n",
        [.head("GET", "/", HTTPVersion(major: 1, minor: 2)), .end]
    ),
    ParserFixture(
        "a few empty lines before a request line are skipped",
        "\r\n\r\n\nGET / HTTP/1.1\r\n\r\n",
        [.head("GET", "/"), .end]
    ),
    ParserFixture(
        "an empty line between pipelined requests is skipped",
        "POST / HTTP/1.1\r\nContent-Length: 1\r\n\r\nx\r\nGET / HTTP/1.1\r\n\r\n",
        [
            .head("POST", "/", .http1_1, ["Content-Length": "1"], framing: .length(1)), .text("x"), .end,
            .head("GET", "/"), .end,
        ]
    ),
    ParserFixture(
        "repeated fields stay separate, in order, with their original case",
        "GET / HTTP/1.1\r\nX-A: 1\r\nset-cookie: a=1\r\nX-B: 2\r\nSet-Cookie: b=2\r\n\r\n",
        [.head("GET", "/", .http1_1, ["X-A": "1", "set-cookie": "a=1", "X-B": "2", "Set-Cookie": "b=2"]), .end]
    ),
    ParserFixture(
        "field values lose surrounding whitespace but keep inner whitespace; empty values are kept",
        "GET / HTTP/1.1\r\nX-A: \t a  b \t\r\nX-Empty:\r\nX-Spaces:   \r\n\r\n",
        [.head("GET", "/", .http1_1, ["X-A": "a  b", "X-Empty": "", "X-Spaces": ""]), .end]
    ),
    ParserFixture(
        "bare LF ends lines as well as CRLF",
        "POST / HTTP/1.1\nHost: a\nTransfer-Encoding: chunked\n\n1\nx\n0\n\n",
        [
            .head("POST", "/", .http1_1, ["Host": "a", "Transfer-Encoding": "chunked"], framing: .chunked),
            .text("x"), .end,
        ]
    ),
    ParserFixture(
        "UTF-8 in a field value is kept",
        "GET / HTTP/1.1\r\nX-Name: Jos\u{E9}\r\n\r\n",
        [.head("GET", "/", .http1_1, ["X-Name": "Jos\u{E9}"]), .end]
    ),
    ParserFixture(
        "invalid UTF-8 in a field value is replaced, not rejected",
        bytes: Array("GET / HTTP/1.1\r\nX-Raw: a".utf8) + [0xFF] + Array("b\r\n\r\n".utf8),
        [.head("GET", "/", .http1_1, ["X-Raw": "a\u{FFFD}b"]), .end]
    ),
    ParserFixture(
        "CONNECT with an authority-form target has no body",
        "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n",
        [.head("CONNECT", "example.com:443", .http1_1, ["Host": "example.com:443"]), .end]
    ),
    ParserFixture(
        "a request line of exactly the limit is accepted",
        "GET /" + String(repeating: "a", count: 18) + " HTTP/1.1\r\n\r\n",
        limits: small,
        [.head("GET", "/" + String(repeating: "a", count: 18)), .end]
    ),
    ParserFixture(
        "a header section of exactly the limit, and the most fields allowed, are accepted",
        "GET / HTTP/1.1\r\nA: " + String(repeating: "x", count: 45) + "\r\nB: 1\r\nC: 2\r\n\r\n",
        limits: small,
        [.head("GET", "/", .http1_1, ["A": String(repeating: "x", count: 45), "B": "1", "C": "2"]), .end]
    ),
    ParserFixture(
        "a trailer section up to the header limits is accepted",
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nA: 1\r\nB: 2\r\nC: "
            + String(repeating: "x", count: 45) + "\r\n\r\n",
        limits: small,
        [.head("POST", "/", .http1_1, ["Transfer-Encoding": "chunked"], framing: .chunked), .end]
    ),
]

@Test("a valid request stream yields the same events however it is cut", arguments: validRequests)
func validRequest(_ fixture: ParserFixture) {
    #expect(ParserVerifier.verify(fixture.input, limits: fixture.limits) == fixture.expected)
}

/// A request stream the parser must reject, with the error and the status it maps to.
struct MalformedFixture: Sendable, CustomTestStringConvertible {
    let name: String
    let input: [UInt8]
    let limits: RequestParser.Limits
    let error: WireError
    let status: Int

    init(_ name: String, _ input: String, limits: RequestParser.Limits = .init(), _ error: WireError, _ status: Int) {
        self.init(name, bytes: Array(input.utf8), limits: limits, error, status)
    }

    init(_ name: String, bytes: [UInt8], limits: RequestParser.Limits = .init(), _ error: WireError, _ status: Int) {
        self.name = name
        self.input = bytes
        self.limits = limits
        self.error = error
        self.status = status
    }

    var testDescription: String { name }
}

private let chunkedHead = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"

private let malformedRequests: [MalformedFixture] = [
    // Request line (RFC 9112 §3).
    MalformedFixture(
        "a request line without a version", "GET /\r\n\r\n",
        .badRequestLine("it is not a method, a target and a version separated by spaces"), 400
    ),
    MalformedFixture(
        "a request line with one word", "GET\r\n\r\n",
        .badRequestLine("it is not a method, a target and a version separated by spaces"), 400
    ),
    MalformedFixture(
        "two spaces between method and target", "GET  / HTTP/1.1\r\n\r\n",
        .badRequestLine("the target has a space, a control character or a non-ASCII byte"), 400
    ),
    MalformedFixture(
        "a method that is not a token", "G(T / HTTP/1.1\r\n\r\n", .badRequestLine("the method is not a token"), 400
    ),
    MalformedFixture(
        "a request line starting with a space", " GET / HTTP/1.1\r\n\r\n",
        .badRequestLine("the method is not a token"), 400
    ),
    MalformedFixture(
        "a control character in the target", "GET /a\u{1}b HTTP/1.1\r\n\r\n",
        .badRequestLine("the target has a space, a control character or a non-ASCII byte"), 400
    ),
    MalformedFixture(
        "a target with raw UTF-8 (it must be percent-encoded)", "GET /caf\u{E9} HTTP/1.1\r\n\r\n",
        .badRequestLine("the target has a space, a control character or a non-ASCII byte"), 400
    ),
    MalformedFixture(
        "a target with a byte that is not UTF-8",
        bytes: Array("GET /a".utf8) + [0xFF] + Array(" HTTP/1.1\r\n\r\n".utf8),
        .badRequestLine("the target has a space, a control character or a non-ASCII byte"), 400
    ),
    MalformedFixture(
        "a lowercase protocol name", "GET / http/1.1\r\n\r\n", .badRequestLine("the version is not HTTP/x.y"), 400
    ),
    MalformedFixture(
        "a two-digit minor version", "GET / HTTP/1.10\r\n\r\n", .badRequestLine("the version is not HTTP/x.y"), 400
    ),
    MalformedFixture("HTTP/2.0", "GET / HTTP/2.0\r\n\r\n", .unsupportedVersion("HTTP/2.0"), 505),
    MalformedFixture("HTTP/0.9", "GET / HTTP/0.9\r\n\r\n", .unsupportedVersion("HTTP/0.9"), 505),
    MalformedFixture(
        "a bare CR in the request line", "GET / HTTP/1.1\rHost: a\r\n\r\n",
        .badRequestLine("it ends in a CR without LF"), 400
    ),
    MalformedFixture(
        "too many empty lines before the request line", "\r\n\r\n\r\n\r\n\r\nGET / HTTP/1.1\r\n\r\n",
        .badRequestLine("more than 4 empty lines precede it"), 400
    ),
    MalformedFixture(
        "a request line one byte over the limit",
        "GET /" + String(repeating: "a", count: 19) + " HTTP/1.1\r\n\r\n", limits: small, .uriTooLong, 414
    ),
    MalformedFixture(
        "a request line one byte over the limit, ended by a bare LF",
        "GET /" + String(repeating: "a", count: 19) + " HTTP/1.1\n\n", limits: small, .uriTooLong, 414
    ),
    MalformedFixture(
        "a request line that never ends", "GET /" + String(repeating: "a", count: 64), limits: small, .uriTooLong,
        414
    ),

    // Field lines (RFC 9112 §5).
    MalformedFixture(
        "obs-fold", "GET / HTTP/1.1\r\nX-A: one\r\n two\r\n\r\n",
        .badHeader("a line starts with whitespace (obsolete line folding)"), 400
    ),
    MalformedFixture(
        "whitespace between the request line and the first field", "GET / HTTP/1.1\r\n Host: a\r\n\r\n",
        .badHeader("a line starts with whitespace (obsolete line folding)"), 400
    ),
    MalformedFixture(
        "a field line without a colon", "GET / HTTP/1.1\r\nHost a\r\n\r\n", .badHeader("a line has no colon"), 400
    ),
    MalformedFixture(
        "whitespace before the colon", "GET / HTTP/1.1\r\nHost : a\r\n\r\n",
        .badHeader("whitespace between a field name and its colon"), 400
    ),
    MalformedFixture(
        "a field name that is not a token", "GET / HTTP/1.1\r\nHo(st: a\r\n\r\n",
        .badHeader("a field name contains a character that is not allowed"), 400
    ),
    MalformedFixture(
        "an empty field name", "GET / HTTP/1.1\r\n: a\r\n\r\n", .badHeader("a field name is empty"), 400
    ),
    MalformedFixture(
        "NUL in a field value", "GET / HTTP/1.1\r\nX-A: a\u{0}b\r\n\r\n",
        .badHeader("a field value contains NUL, CR or LF"), 400
    ),
    MalformedFixture(
        "a bare CR in a field value", "GET / HTTP/1.1\r\nX-A: a\rb\r\n\r\n",
        .badHeader("a line ends in a CR without LF"), 400
    ),
    MalformedFixture(
        "two Host fields", "GET / HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n", .badHeader("more than one Host field"), 400
    ),
    MalformedFixture(
        "a header section over the byte limit",
        "GET / HTTP/1.1\r\nA: " + String(repeating: "x", count: 46) + "\r\nB: 1\r\nC: 2\r\n\r\n", limits: small,
        .headersTooLarge, 431
    ),
    MalformedFixture(
        "a header section that never ends", "GET / HTTP/1.1\r\nA: " + String(repeating: "x", count: 100),
        limits: small, .headersTooLarge, 431
    ),
    MalformedFixture(
        "more fields than the count limit", "GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n", limits: small,
        .headersTooLarge, 431
    ),

    // Framing (RFC 9112 §6).
    MalformedFixture(
        "both Content-Length and Transfer-Encoding",
        "POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", .conflictingFraming, 400
    ),
    MalformedFixture(
        "a Content-Length that is not a number", "POST / HTTP/1.1\r\nContent-Length: abc\r\n\r\n",
        .badContentLength, 400
    ),
    MalformedFixture(
        "a negative Content-Length", "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", .badContentLength, 400
    ),
    MalformedFixture(
        "a Content-Length with a sign", "POST / HTTP/1.1\r\nContent-Length: +1\r\n\r\n", .badContentLength, 400
    ),
    MalformedFixture(
        "an empty Content-Length", "POST / HTTP/1.1\r\nContent-Length:\r\n\r\n", .badContentLength, 400
    ),
    MalformedFixture(
        "a Content-Length too large for an Int", "POST / HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n",
        .badContentLength, 400
    ),
    MalformedFixture(
        "differing Content-Length values in one field", "POST / HTTP/1.1\r\nContent-Length: 5, 6\r\n\r\n",
        .badContentLength, 400
    ),
    MalformedFixture(
        "differing Content-Length fields", "POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
        .badContentLength, 400
    ),
    MalformedFixture(
        "an empty element in a Content-Length list", "POST / HTTP/1.1\r\nContent-Length: 5,,5\r\n\r\n",
        .badContentLength, 400
    ),
    MalformedFixture(
        "a transfer coding other than chunked", "POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n",
        .unsupportedTransferCoding("gzip"), 501
    ),
    MalformedFixture(
        "chunked after another coding", "POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
        .unsupportedTransferCoding("gzip, chunked"), 501
    ),
    MalformedFixture(
        "chunked that is not the final coding",
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n\r\n",
        .unsupportedTransferCoding("chunked, gzip"), 501
    ),
    MalformedFixture(
        "chunked twice", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked, chunked\r\n\r\n",
        .unsupportedTransferCoding("chunked, chunked"), 501
    ),
    MalformedFixture(
        "Transfer-Encoding in an HTTP/1.0 request", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n",
        .badHeader("Transfer-Encoding is not allowed in an HTTP/1.0 request"), 400
    ),

    // Chunked body (RFC 9112 §7.1).
    MalformedFixture(
        "a chunk-size that is not hex", chunkedHead + "xyz\r\n", .badChunk("a chunk-size is not a hex number"), 400
    ),
    MalformedFixture(
        "an empty chunk-size line", chunkedHead + "\r\n", .badChunk("a chunk-size is not a hex number"), 400
    ),
    MalformedFixture(
        "a chunk-size with more than 16 hex digits", chunkedHead + "00000000000000001\r\nx\r\n0\r\n\r\n",
        .badChunk("a chunk-size has more than 16 hex digits"), 400
    ),
    MalformedFixture(
        "a chunk-size too large for an Int", chunkedHead + "8000000000000000\r\n",
        .badChunk("a chunk-size is too large"), 400
    ),
    MalformedFixture(
        "junk after a chunk-size", chunkedHead + "5 x\r\nhello\r\n0\r\n\r\n",
        .badChunk("a chunk-size is followed by something other than an extension"), 400
    ),
    MalformedFixture(
        "chunk data longer than its size", chunkedHead + "3\r\nabcd\r\n0\r\n\r\n",
        .badChunk("chunk data is not followed by CRLF"), 400
    ),
    MalformedFixture(
        "chunk data followed by a bare CR", chunkedHead + "3\r\nabc\rx0\r\n\r\n",
        .badChunk("chunk data is not followed by CRLF"), 400
    ),
    MalformedFixture(
        "a bare CR in a chunk-size line", chunkedHead + "3\rabc\r\n",
        .badChunk("a chunk-size line ends in a CR without LF"), 400
    ),
    MalformedFixture(
        "a chunk-size line longer than 4096 bytes", chunkedHead + "1;" + String(repeating: "e", count: 4100) + "\r\n",
        .badChunk("a chunk-size line is longer than 4096 bytes"), 400
    ),
    MalformedFixture(
        "a trailer section over the byte limit",
        chunkedHead + "0\r\nA: 1\r\nB: 2\r\nC: " + String(repeating: "x", count: 46) + "\r\n\r\n", limits: small,
        .badChunk("the trailer section is larger than 64 bytes"), 400
    ),
    MalformedFixture(
        "more trailer fields than the count limit", chunkedHead + "0\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n",
        limits: small, .badChunk("the trailer section has more than 3 fields"), 400
    ),
    MalformedFixture(
        "a malformed trailer field", chunkedHead + "0\r\nNo colon\r\n\r\n", .badHeader("a line has no colon"), 400
    ),
]

@Test("a malformed request is rejected with its error and status, however it is cut", arguments: malformedRequests)
func malformedRequest(_ fixture: MalformedFixture) {
    let events = ParserVerifier.verify(fixture.input, limits: fixture.limits)
    #expect(events.last == .error(fixture.error))
    #expect(fixture.error.status == fixture.status)
    #expect(!fixture.error.message.isEmpty)
}

@Test("the default limits accept an 8192-byte request line and reject one byte more")
func defaultRequestLineLimit() {
    func requestLine(length: Int) -> [UInt8] {
        let path = "/" + String(repeating: "a", count: length - "GET  HTTP/1.1".utf8.count - 1)
        return Array("GET \(path) HTTP/1.1\r\n\r\n".utf8)
    }
    var parser = RequestParser()
    parser.append(requestLine(length: 8192))
    guard case .head = parser.next() else {
        Issue.record("an 8192-byte request line was not accepted")
        return
    }
    parser = RequestParser()
    parser.append(requestLine(length: 8193))
    #expect(parser.next() == .error(.uriTooLong))
}

@Test("bytes after a request's end are reported as buffered until parsed")
func pipelinedBytesAreBuffered() {
    var parser = RequestParser()
    let second = "GET /2 HTTP/1.1\r\n"
    parser.append(Array("GET /1 HTTP/1.1\r\n\r\n\(second)".utf8))
    guard case .head = parser.next() else {
        Issue.record("no head")
        return
    }
    #expect(parser.isInsideMessage)
    #expect(parser.next() == .end)
    #expect(!parser.isInsideMessage)
    #expect(parser.bufferedByteCount == second.utf8.count)
    #expect(parser.next() == nil)
}

@Test("isInsideMessage holds from a head to its end")
func insideMessage() {
    var parser = RequestParser()
    #expect(!parser.isInsideMessage)
    parser.append(Array("POST / HTTP/1.1\r\nContent-Length: 4\r\n\r\nab".utf8))
    #expect(!parser.isInsideMessage)
    #expect(
        parser.next()
            == .head(
                RequestHead(method: "POST", target: "/", headers: ["Content-Length": "4"]),
                framing: .length(4)))
    #expect(parser.isInsideMessage)
    #expect(parser.next() == .body(Array("ab".utf8)))
    #expect(parser.next() == nil)
    #expect(parser.isInsideMessage)
    parser.append(Array("cd".utf8))
    #expect(parser.next() == .body(Array("cd".utf8)))
    #expect(parser.next() == .end)
    #expect(!parser.isInsideMessage)
}

@Test("body bytes appended while inside a body are counted as buffered until handed out, one piece per append")
func directBodyBytes() {
    var parser = RequestParser()
    parser.append(Array("POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\n".utf8))
    guard case .head = parser.next() else {
        Issue.record("no head")
        return
    }
    #expect(parser.next() == nil)
    parser.append(Array("abc".utf8))
    parser.append(Array("defghij".utf8) + Array("GET / HTTP/1.1\r\n\r\n".utf8))
    #expect(parser.bufferedByteCount == 10 + 18)
    #expect(parser.next() == .body(Array("abc".utf8)))
    #expect(parser.next() == .body(Array("defghij".utf8)))
    #expect(parser.bufferedByteCount == 18)
    #expect(parser.next() == .end)
    #expect(parser.next() == .head(RequestHead(method: "GET", target: "/"), framing: .none))
    #expect(parser.next() == .end)
    #expect(parser.bufferedByteCount == 0)
}

@Test("the lines of a head still arriving count as buffered; empty lines between requests do not")
func partialHeadIsBuffered() {
    var parser = RequestParser()
    parser.append(Array("\r\n".utf8))
    #expect(parser.next() == nil)
    #expect(parser.bufferedByteCount == 0)
    let lines = "GET / HTTP/1.1\r\nHost: a\r\n"
    parser.append(Array(lines.utf8))
    #expect(parser.next() == nil)
    #expect(parser.bufferedByteCount == lines.utf8.count)
    parser.append(Array("\r\n".utf8))
    #expect(parser.next() == .head(RequestHead(method: "GET", target: "/", headers: ["Host": "a"]), framing: .none))
    #expect(parser.bufferedByteCount == 0)
}

@Test("takeBufferedBytes hands over what follows a CONNECT head and finishes the parser")
func takeBufferedBytesAfterConnect() {
    var parser = RequestParser()
    let tunnelBytes: [UInt8] = [0x16, 0x03, 0x01, 0x00, 0x0D, 0x0A, 0x0D, 0x0A]
    parser.append(Array("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n".utf8) + tunnelBytes)
    guard case .head = parser.next() else {
        Issue.record("no head")
        return
    }
    #expect(parser.next() == .end)
    #expect(parser.takeBufferedBytes() == tunnelBytes)
    #expect(parser.bufferedByteCount == 0)
    parser.append(Array("GET / HTTP/1.1\r\n\r\n".utf8))
    #expect(parser.next() == nil)
}

@Test("takeBufferedBytes keeps body bytes not yet handed out, in order")
func takeBufferedBytesKeepsBody() {
    var parser = RequestParser()
    parser.append(Array("POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\n".utf8))
    _ = parser.next()
    parser.append(Array("abcdef".utf8))
    #expect(parser.takeBufferedBytes() == Array("abcdef".utf8))
}

@Test("an incomplete head yields nothing until its empty line arrives")
func incompleteHead() {
    var parser = RequestParser()
    parser.append(Array("GET / HTTP/1.1\r\nHost: a\r\n".utf8))
    #expect(parser.next() == nil)
    #expect(parser.next() == nil)
    parser.append(Array("\r\n".utf8))
    #expect(parser.next() == .head(RequestHead(method: "GET", target: "/", headers: ["Host": "a"]), framing: .none))
}

@Test("after an error the parser drops what it held and stays finished")
func finishedAfterError() {
    var parser = RequestParser()
    parser.append(Array("GET / HTTP/3.0\r\n\r\nGET / HTTP/1.1\r\n\r\n".utf8))
    #expect(parser.next() == .error(.unsupportedVersion("HTTP/3.0")))
    #expect(parser.bufferedByteCount == 0)
    parser.append(Array("GET / HTTP/1.1\r\n\r\n".utf8))
    #expect(parser.next() == nil)
    #expect(parser.bufferedByteCount == 0)
    #expect(!parser.isInsideMessage)
}

@Test("a long stream of pipelined requests parses in full while the buffer is compacted")
func longPipeline() {
    let request = Array("POST /x HTTP/1.1\r\nHost: example.com\r\nContent-Length: 5\r\n\r\nhello".utf8)
    var parser = RequestParser()
    var heads = 0
    var body: [UInt8] = []
    var ends = 0
    // Uneven appends so requests straddle appends at every offset.
    let stream = Array((0..<2000).map { _ in request }.joined())
    var offset = 0
    var step = 1
    while offset < stream.count {
        let end = min(stream.count, offset + step)
        parser.append(Array(stream[offset..<end]))
        offset = end
        step = step % 997 + 13
        while let event = parser.next() {
            switch event {
            case .head: heads += 1
            case .body(let bytes): body += bytes
            case .end: ends += 1
            case .error(let error): Issue.record("unexpected \(error)")
            }
        }
    }
    #expect(heads == 2000)
    #expect(ends == 2000)
    #expect(body.count == 2000 * 5)
    #expect(parser.bufferedByteCount == 0)
}
