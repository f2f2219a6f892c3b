import CachePolicy
import HTTPWire
import Testing

/// One row of the invalidation table; the request URL is `http://example.test/a/b?x=1`.
struct InvalidationCase: Sendable, CustomTestStringConvertible {
    var name: String
    var method = "POST"
    var status = 200
    var lines: [String] = []
    var expected: [String]

    var testDescription: String { name }
}

private let target = "http://example.test/a/b?x=1"

@Suite("RFC 9111 §4.4 invalidating stored responses")
struct InvalidationTests {
    static let methods: [InvalidationCase] = [
        InvalidationCase(name: "POST 200", expected: [target]),
        InvalidationCase(name: "PUT 201", method: "PUT", status: 201, expected: [target]),
        InvalidationCase(name: "DELETE 204", method: "DELETE", status: 204, expected: [target]),
        InvalidationCase(name: "PATCH 200", method: "PATCH", expected: [target]),
        InvalidationCase(name: "POST 303 (3xx is not an error)", status: 303, expected: [target]),
        InvalidationCase(name: "a method of unknown safety", method: "FROB", expected: [target]),
        InvalidationCase(name: "POST 404", status: 404, expected: []),
        InvalidationCase(name: "POST 500", status: 500, expected: []),
        InvalidationCase(name: "POST 100", status: 100, expected: []),
        InvalidationCase(name: "GET", method: "GET", expected: []),
        InvalidationCase(name: "HEAD", method: "HEAD", expected: []),
        InvalidationCase(name: "OPTIONS", method: "OPTIONS", expected: []),
        InvalidationCase(name: "TRACE", method: "TRACE", expected: []),
        InvalidationCase(name: "an error with Location", status: 400, lines: ["Location: /z"], expected: []),
    ]

    @Test("a non-error response to an unsafe method invalidates the target URI (§4.4)", arguments: methods)
    func invalidatesTarget(_ row: InvalidationCase) {
        check(row)
    }

    static let locations: [InvalidationCase] = [
        InvalidationCase(
            name: "absolute-path Location", status: 201, lines: ["Location: /items/7"],
            expected: [target, "http://example.test/items/7"]),
        InvalidationCase(
            name: "relative Location", status: 201, lines: ["Location: c"],
            expected: [target, "http://example.test/a/c"]),
        InvalidationCase(
            name: "dot segments", lines: ["Location: ../up?y=2"], expected: [target, "http://example.test/up?y=2"]),
        InvalidationCase(
            name: "query-only reference", lines: ["Location: ?q"], expected: [target, "http://example.test/a/b?q"]),
        InvalidationCase(
            name: "network-path reference", lines: ["Location: //example.test/z"],
            expected: [target, "http://example.test/z"]),
        InvalidationCase(
            name: "absolute, same origin", lines: ["Location: http://example.test/z"],
            expected: [target, "http://example.test/z"]),
        InvalidationCase(
            name: "absolute, host in capitals", lines: ["Location: http://EXAMPLE.test/z"],
            expected: [target, "http://example.test/z"]),
        InvalidationCase(
            name: "explicit default port", lines: ["Location: http://example.test:80/z"],
            expected: [target, "http://example.test/z"]),
        InvalidationCase(
            name: "fragment dropped", lines: ["Location: /items/7#top"],
            expected: [target, "http://example.test/items/7"]),
        InvalidationCase(
            name: "Content-Location", lines: ["Content-Location: /a/b.json"],
            expected: [target, "http://example.test/a/b.json"]),
        InvalidationCase(
            name: "both, in that order", lines: ["Content-Location: /c", "Location: /l"],
            expected: [target, "http://example.test/l", "http://example.test/c"]),
        InvalidationCase(
            name: "the target named again is listed once",
            lines: ["Content-Location: /a/b?x=1", "Location: \(target)"],
            expected: [target]),
        InvalidationCase(name: "other host", lines: ["Location: http://other.test/z"], expected: [target]),
        InvalidationCase(name: "other scheme", lines: ["Location: https://example.test/z"], expected: [target]),
        InvalidationCase(name: "other port", lines: ["Location: http://example.test:8080/z"], expected: [target]),
        InvalidationCase(name: "not an http URL", lines: ["Location: mailto:a@example.test"], expected: [target]),
    ]

    @Test("same-origin Location and Content-Location are invalidated too (§4.4)", arguments: locations)
    func invalidatesLocations(_ row: InvalidationCase) {
        check(row)
    }

    private func check(_ row: InvalidationCase) {
        // The fixture URL is valid by construction.
        let url = AbsoluteURL(string: target)!
        let targets = RFC9111.invalidationTargets(
            method: row.method, requestURL: url, response: response(row.status, row.lines))
        #expect(targets.map(\.description) == row.expected)
    }

    /// RFC 3986 §5.4.1 and §5.4.2, against the base `http://a/b/c/d;p?q` (fragments are dropped).
    static let references: [(String, String)] = [
        ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"), ("/g", "http://a/g"),
        ("//g", "http://g/"), ("?y", "http://a/b/c/d;p?y"), ("g?y", "http://a/b/c/g?y"), ("#s", "http://a/b/c/d;p?q"),
        ("g#s", "http://a/b/c/g"), ("g?y#s", "http://a/b/c/g?y"), (";x", "http://a/b/c/;x"),
        ("g;x", "http://a/b/c/g;x"),
        ("", "http://a/b/c/d;p?q"), (".", "http://a/b/c/"), ("./", "http://a/b/c/"), ("..", "http://a/b/"),
        ("../", "http://a/b/"),
        ("../g", "http://a/b/g"), ("../..", "http://a/"), ("../../", "http://a/"), ("../../g", "http://a/g"),
        ("../../../g", "http://a/g"), ("../../../../g", "http://a/g"), ("/./g", "http://a/g"), ("/../g", "http://a/g"),
        ("g.", "http://a/b/c/g."), (".g", "http://a/b/c/.g"), ("g..", "http://a/b/c/g.."), ("..g", "http://a/b/c/..g"),
        ("./../g", "http://a/b/g"), ("./g/.", "http://a/b/c/g/"), ("g/./h", "http://a/b/c/g/h"),
        ("g/../h", "http://a/b/c/h"),
        ("g;x=1/./y", "http://a/b/c/g;x=1/y"), ("g;x=1/../y", "http://a/b/c/y"), ("g?y/./x", "http://a/b/c/g?y/./x"),
        ("HTTP://a/b", "http://a/b"),
    ]

    @Test("relative references resolve as RFC 3986 §5.2 says (its §5.4 examples)", arguments: references)
    func resolvesReferences(reference: String, expected: String) {
        // The fixture URL is valid by construction.
        let base = AbsoluteURL(string: "http://a/b/c/d;p?q")!
        #expect(URIReference(parsing: reference).resolved(against: base)?.description == expected)
    }
}
