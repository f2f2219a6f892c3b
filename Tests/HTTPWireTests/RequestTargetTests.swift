import HTTPWire
import Testing

/// A request target, the method it came with, and how it must be read.
struct TargetCase: Sendable, CustomTestStringConvertible {
    let method: String
    let target: String
    let expected: Result<RequestTarget, WireError>

    init(_ method: String, _ target: String, _ expected: RequestTarget) {
        self.method = method
        self.target = target
        self.expected = .success(expected)
    }

    init(_ method: String, _ target: String, throws error: WireError) {
        self.method = method
        self.target = target
        self.expected = .failure(error)
    }

    var testDescription: String { "\(method) \(target)" }
}

private func url(_ scheme: String, _ host: String, _ port: Int, _ path: String, _ query: String? = nil) -> RequestTarget
{
    .absolute(AbsoluteURL(scheme: scheme, host: host, port: port, path: path, query: query))
}

private let targets: [TargetCase] = [
    TargetCase("GET", "/a/b?c=d", .origin("/a/b?c=d")),
    TargetCase("GET", "//double", .origin("//double")),
    TargetCase("GET", "http://example.com/a?b", url("http", "example.com", 80, "/a", "b")),
    TargetCase("GET", "http://example.com:8080/a", url("http", "example.com", 8080, "/a")),
    TargetCase("GET", "http://example.com", url("http", "example.com", 80, "/")),
    TargetCase("GET", "http://example.com?q", url("http", "example.com", 80, "/", "q")),
    TargetCase("GET", "http://example.com/?", url("http", "example.com", 80, "/", "")),
    TargetCase("GET", "http://example.com:/a", url("http", "example.com", 80, "/a")),
    TargetCase("GET", "https://example.com/", url("https", "example.com", 443, "/")),
    TargetCase("GET", "https://example.com:8443/x", url("https", "example.com", 8443, "/x")),
    TargetCase("GET", "HTTP://EXAMPLE.Com/Path%2F", url("http", "example.com", 80, "/Path%2F")),
    TargetCase("GET", "http://[::1]:8080/x", url("http", "::1", 8080, "/x")),
    TargetCase("GET", "http://[2001:DB8::1]/", url("http", "2001:db8::1", 80, "/")),
    TargetCase("GET", "http://192.0.2.1/", url("http", "192.0.2.1", 80, "/")),
    TargetCase("OPTIONS", "*", .asterisk),
    TargetCase("CONNECT", "example.com:443", .authority(host: "example.com", port: 443)),
    TargetCase("CONNECT", "EXAMPLE.com:8443", .authority(host: "example.com", port: 8443)),
    TargetCase("CONNECT", "[::1]:443", .authority(host: "::1", port: 443)),

    TargetCase("GET", "ftp://example.com/", throws: .unsupportedScheme("ftp")),
    TargetCase("GET", "ws://example.com/", throws: .unsupportedScheme("ws")),
    TargetCase("GET", "WSS://example.com/", throws: .unsupportedScheme("wss")),
    TargetCase("GET", "http://user@example.com/", throws: .badTarget("it contains userinfo (\"@\")")),
    TargetCase("GET", "http://user:pw@example.com/", throws: .badTarget("it contains userinfo (\"@\")")),
    TargetCase("GET", "http:///a", throws: .badTarget("the host is empty")),
    TargetCase("GET", "http://:80/a", throws: .badTarget("the host is empty")),
    TargetCase("GET", "http://example.com/a#b", throws: .badTarget("it has a fragment (\"#\")")),
    TargetCase("GET", "/a#b", throws: .badTarget("it has a fragment (\"#\")")),
    TargetCase("GET", "http://example.com:0/", throws: .badTarget("the port is not a number from 1 to 65535")),
    TargetCase("GET", "http://example.com:65536/", throws: .badTarget("the port is not a number from 1 to 65535")),
    TargetCase("GET", "http://example.com:8o/", throws: .badTarget("the port is not a number from 1 to 65535")),
    TargetCase("GET", "http://[::1/", throws: .badTarget("an IPv6 address has no closing \"]\"")),
    TargetCase(
        "GET", "http://[::1]x/", throws: .badTarget("an IPv6 address is followed by something other than a port")),
    TargetCase("GET", "http://[example]/", throws: .badTarget("the host is not an IPv6 address")),
    TargetCase(
        "GET", "http://exa%6Dple.com/",
        throws: .badTarget("the host may contain only letters, digits, \"-\", \".\", \"_\" and \"~\"")
    ),
    TargetCase(
        "GET", "http:/example.com/",
        throws: .badTarget("it is neither a path starting with \"/\" nor an absolute http(s) URL")
    ),
    TargetCase(
        "GET", "example.com:80",
        throws: .badTarget("it is neither a path starting with \"/\" nor an absolute http(s) URL")
    ),
    TargetCase("GET", "/caf\u{E9}", throws: .badTarget("it has a space, a control character or a non-ASCII byte")),
    TargetCase(
        "GET", "http://example.com/caf\u{E9}",
        throws: .badTarget("it has a space, a control character or a non-ASCII byte")
    ),
    TargetCase("GET", "*", throws: .badTarget("\"*\" is allowed only with OPTIONS")),
    TargetCase("CONNECT", "example.com", throws: .badTarget("CONNECT needs host:port")),
    TargetCase("CONNECT", "example.com:", throws: .badTarget("CONNECT needs host:port")),
    TargetCase("CONNECT", "/path", throws: .badTarget("CONNECT needs host:port")),
    TargetCase("CONNECT", "http://example.com:443", throws: .badTarget("CONNECT needs host:port")),
    TargetCase("CONNECT", ":443", throws: .badTarget("the host is empty")),
    TargetCase("CONNECT", "example.com:99999", throws: .badTarget("the port is not a number from 1 to 65535")),
    TargetCase("CONNECT", "user@example.com:443", throws: .badTarget("it contains userinfo (\"@\")")),
]

@Test("a request target is read in the form its method allows", arguments: targets)
func requestTarget(_ testCase: TargetCase) {
    let parsed = Result { () throws(WireError) in try RequestTarget(parsing: testCase.target, method: testCase.method) }
    #expect(parsed == testCase.expected)
}

@Test(
    "an absolute URL's authority brackets IPv6 and shows only a non-default port",
    arguments: [
        ("http://example.com/", "example.com", "http://example.com/"),
        ("http://example.com:80/a?b", "example.com", "http://example.com/a?b"),
        ("http://example.com:8080/a", "example.com:8080", "http://example.com:8080/a"),
        ("https://example.com:443", "example.com", "https://example.com/"),
        ("https://example.com:80/", "example.com:80", "https://example.com:80/"),
        ("HTTP://[::1]:8443/x?", "[::1]:8443", "http://[::1]:8443/x?"),
        ("http://[::1]/", "[::1]", "http://[::1]/"),
    ])
func absoluteURLAuthority(text: String, authority: String, description: String) throws {
    let url = try #require(AbsoluteURL(string: text))
    #expect(url.authority == authority)
    #expect(url.description == description)
    #expect(AbsoluteURL(string: url.description) == url)
}

@Test(
    "pathAndQuery is what goes into an origin-form request line",
    arguments: [
        ("http://example.com", "/"),
        ("http://example.com/a/b", "/a/b"),
        ("http://example.com/a?x=1&y", "/a?x=1&y"),
        ("http://example.com?", "/?"),
    ])
func pathAndQuery(text: String, expected: String) throws {
    #expect(try #require(AbsoluteURL(string: text)).pathAndQuery == expected)
}

@Test(
    "AbsoluteURL(string:) is nil for anything but an absolute http(s) URL",
    arguments: [
        "", "/relative", "example.com", "ftp://example.com/", "http://", "http://user@host/", "http://host/a#f",
        "http://host/a b", "mailto:a@example.com",
    ])
func absoluteURLRejects(text: String) {
    #expect(AbsoluteURL(string: text) == nil)
}

@Test("the memberwise initialiser normalises scheme, host and an empty path")
func absoluteURLNormalises() {
    let url = AbsoluteURL(scheme: "HTTPS", host: "Example.COM", port: 443, path: "", query: nil)
    #expect(url.scheme == "https")
    #expect(url.host == "example.com")
    #expect(url.path == "/")
    #expect(url.isDefaultPort)
    #expect(url.description == "https://example.com/")
}

@Test("URLs are equal by their parts, not only by their text, and any port is written whole")
func absoluteURLEqualityAndPorts() {
    let pathWithMark = AbsoluteURL(scheme: "http", host: "a", port: 80, path: "/x?y", query: nil)
    let pathAndQuery = AbsoluteURL(scheme: "http", host: "a", port: 80, path: "/x", query: "y")
    #expect(pathWithMark.description == pathAndQuery.description)
    #expect(pathWithMark != pathAndQuery)
    #expect(Set([pathWithMark, pathAndQuery]).count == 2)
    #expect(AbsoluteURL(string: "http://A:80/x?y") == pathAndQuery)
    let odd = AbsoluteURL(scheme: "http", host: "h", port: Int.min, path: "/", query: nil)
    #expect(odd.authority == "h:\(Int.min)")
    #expect(odd.description == "http://h:\(Int.min)/")
}
