import HTTPWire
import Testing

@Suite("RFC 9110 §5.6.1 list fields and case-insensitive names")
struct HeaderListTests {
    static let lists: [(String, [String])] = [
        ("", []),
        ("a", ["a"]),
        ("a, b,c", ["a", "b", "c"]),
        (" \ta ,\t b\t", ["a", "b"]),
        (",, a ,, ,b,", ["a", "b"]),
        ("\"a, b\", c", ["\"a, b\"", "c"]),
        ("x=\"a\\\", b\", c", ["x=\"a\\\", b\"", "c"]),
        ("x=\"a\\\\\", b", ["x=\"a\\\\\"", "b"]),
        ("a\\, b", ["a\\", "b"]),
        ("\"unterminated, b", ["\"unterminated, b"]),
        ("caf\u{E9}, na\u{EF}ve , \u{1F600}", ["caf\u{E9}", "na\u{EF}ve", "\u{1F600}"]),
        ("\u{E9}\u{301}, b", ["\u{E9}\u{301}", "b"]),
    ]

    @Test("a list value splits at commas outside quoted strings, trimmed, empty elements dropped", arguments: lists)
    func splitsLists(value: String, expected: [String]) {
        #expect(HTTPHeaders([HTTPField("X-List", value)]).listElements("x-list") == expected)
    }

    @Test("the elements of every field line of the name are read in order, other fields not")
    func combinesLines() {
        let headers = HTTPHeaders([
            HTTPField("Vary", "Accept"), HTTPField("Varyx", "no"), HTTPField("X", "no"), HTTPField("VARY", "b, c"),
        ])
        #expect(headers.listElements("vary") == ["Accept", "b", "c"])
        #expect(headers.listContains("Vary", token: "ACCEPT"))
        #expect(headers.listContains("vary", token: "C"))
        #expect(!headers.listContains("Vary", token: "no"))
        #expect(!headers.listContains("Vary", token: "Accep"))
        #expect(!headers.listContains("Connection", token: "close"))
    }

    static let names: [(String, String, Bool)] = [
        ("Cache-Control", "cache-control", true),
        ("CACHE-CONTROL", "Cache-Control", true),
        ("Cache-Control", "Cache-Contro", false),
        ("Cache-Control", "Cache_Control", false),
        ("", "", true),
        ("a", "", false),
        ("[", "{", false),
        ("@", "`", false),
        ("\u{C9}", "\u{E9}", false),
        ("\u{E9}", "\u{E9}", true),
        ("x-caf\u{E9}", "X-CAF\u{E9}", true),
        ("a long header name past the small-string size", "A LONG HEADER NAME PAST THE SMALL-STRING SIZE", true),
        ("a long header name past the small-string size", "A LONG HEADER NAME PAST THE SMALL-STRING SIZF", false),
    ]

    @Test("names compare case-insensitively in ASCII only", arguments: names)
    func comparesNames(lhs: String, rhs: String, equal: Bool) {
        #expect(lhs.equalsIgnoringASCIICase(rhs) == equal)
        #expect(rhs.equalsIgnoringASCIICase(lhs) == equal)
        #expect(HTTPHeaders([HTTPField(lhs, "v")])[rhs] == (equal ? "v" : nil))
    }

    static let trims: [(String, String)] = [
        ("", ""), ("a", "a"), (" \t a b \t ", "a b"), ("\t", ""), (" \u{E9} ", "\u{E9}"),
        ("\u{A0}a\u{A0}", "\u{A0}a\u{A0}"),
    ]

    @Test("trimming drops only spaces and tabs (OWS)", arguments: trims)
    func trimsWhitespace(text: String, expected: String) {
        #expect(text.trimmingHTTPWhitespace() == expected)
    }

    @Test("values lists every line of the name in order; the subscript reads the first")
    func readsValues() {
        let headers = HTTPHeaders([HTTPField("Age", "1"), HTTPField("Date", "d"), HTTPField("age", "2")])
        #expect(headers.values("AGE") == ["1", "2"])
        #expect(headers.values("Expires") == [])
        #expect(headers["aGe"] == "1")
    }
}
