import CachePolicy
import Testing

/// A config file that is not JSON is reported with the line and column where it stops being JSON and what was
/// expected there; a name given twice in one object is reported at its path rather than silently dropped.
@Suite("Config JSON syntax")
struct ConfigJSONReaderTests {
    static func messages(_ text: String) -> [String] {
        switch parse(text) {
        case .success: []
        case .failure(let error): error.problems.map(\.description)
        }
    }

    @Test(
        "syntax errors name the line, the column and what was expected",
        arguments: [
            (
                "{\"listen\": \"127.0.0.1:0\"\n \"log\": {}}",
                "line 2, column 2: expected \",\" or \"}\" after the value of \"listen\", found a string (is a \",\" missing?)"
            ),
            ("{\"routes\": [1, 2,]}", "line 1, column 18: a \",\" before \"]\": JSON allows no trailing comma"),
            ("{\"log\": {},}", "line 1, column 12: a \",\" before \"}\": JSON allows no trailing comma"),
            ("{listen: 1}", "line 1, column 2: expected a name in double quotes, found \"listen\""),
            (
                "{'listen': 1}",
                "line 1, column 2: expected a name in double quotes, found \"'\" (strings and names take double quotes)"
            ),
            (
                "{\"a\": 1 // note\n}",
                "line 1, column 9: expected \",\" or \"}\" after the value of \"a\", found \"/\" (JSON has no comments)"
            ),
            ("{\"a\" 1}", "line 1, column 6: expected \":\" after the name \"a\", found \"1\""),
            (
                "{\"a\": tru}",
                "line 1, column 7: expected a value (an object, array, string, number, true, false or null), found \"tru\""
            ),
            ("{\"a\": 01}", "line 1, column 7: not a JSON number"),
            ("{\"a\": .5}", "line 1, column 7: expected a value"),
            ("{\"a\": \"x\ty\"}", "line 1, column 9: a control character inside a string"),
            ("{\"a\": \"\\q\"}", "line 1, column 9: unknown escape \\q"),
            ("{\"a\": \"\\ud800\"}", "line 1, column 14: a \\u escape for half of a surrogate pair"),
            ("{\"a\": \"\\u+0e9\"}", "line 1, column 10: expected four hexadecimal digits after \\u"),
            ("{\"a\": [1, 2}", "line 1, column 12: expected \",\" or \"]\" after an element, found \"}\""),
            (
                "[{}\n {}]",
                "line 2, column 2: expected \",\" or \"]\" after an element, found \"{\" (is a \",\" missing?)"
            ),
            ("{\"a\": {\"b\": 1}", "line 1, column 15: the file ends inside an object: a \"}\" is missing"),
            ("{\"a\": \"open", "line 1, column 12: the file ends inside a string"),
            ("{} {}", "line 1, column 4: unexpected \"{\" after the end of the document"),
            ("", "line 1, column 1: the file ends where a value was expected"),
            ("{\n  \"é\": \"ü\",\n  x", "line 3, column 3: expected a name in double quotes, found \"x\""),
        ]
    )
    func syntax(text: String, message: String) {
        let messages = Self.messages(text)
        #expect(messages.count == 1, "\(messages)")
        #expect(messages.first?.hasPrefix("$: not valid JSON at \(message)") == true, "\(messages)")
    }

    @Test("a name given twice in one object is a problem at its path, with the others found alongside")
    func repeatedNames() {
        let text = #"""
            {"defaults": {"policy": "standard"},
             "routes": [{"name": "a", "match": {"path": "/"}, "policy": "cache-first", "ttl": "1m", "ttl": "1h"}],
             "defaults": {"policy": "cache-first", "ttl": "5m"},
             "log": {"levle": "info"}}
            """#
        let messages = Self.messages(text)
        #expect(
            messages.contains("$.routes[0].ttl: appears more than once in the same object; keep one"), "\(messages)")
        #expect(messages.contains("$.defaults: appears more than once in the same object; keep one"), "\(messages)")
        #expect(messages.contains { $0.hasPrefix("$.log.levle: unknown key") }, "\(messages)")
    }

    @Test("every JSON form is read: escapes, surrogate pairs, numbers, literals, a byte order mark, nesting")
    func validDocuments() throws {
        let text =
            "\u{FEFF}" + #"""
                {"routes": [{"name": "a", "match": {"path": "/", "port": 8.08e2}, "policy": "cache-first", "ttl": 6E1,
                  "maxStale": null, "storeIf": {"json": {"/s": "a\u00e9\ud83d\ude00\"\\\/\b\f\n\r\t",
                  "/n": -0.5, "/b": [true, false, null, {}], "/o": {"equals": {"k": [1e-2]}}}}}]}
                """#
        guard case .success(let config) = parse(text) else {
            Issue.record("\(Self.messages(text))")
            return
        }
        let route = try #require(config.routes.routes.first)
        #expect(route.match.port == 808)
        #expect(route.options.ttlSeconds == 60)
        let checks = Dictionary(uniqueKeysWithValues: route.options.storeIf.json.map { ($0.pointer, $0.expectation) })
        #expect(checks["/s"] == .equals(.string("a\u{E9}\u{1F600}\"\\/\u{08}\u{0C}\n\r\t")))
        #expect(checks["/n"] == .equals(.number(-0.5)))
        #expect(checks["/b"] == .equals(.array([.bool(true), .bool(false), .null, .object([:])])))
        #expect(checks["/o"] == .equals(.object(["k": .array([.number(0.01)])])))
    }
}
