import CachePolicy
import HTTPWire
import Testing

/// One row of a Vary table: the stored request's fields, the new request's, and whether they match.
struct VaryCase: Sendable, CustomTestStringConvertible {
    var name: String
    var vary: [String]
    var stored: [String]
    var incoming: [String]
    var matches: Bool

    var testDescription: String { name }
}

@Suite("RFC 9111 §4.1 calculating cache keys with Vary")
struct VaryTests {
    static let cases: [VaryCase] = [
        VaryCase(name: "no Vary", vary: [], stored: [], incoming: ["Accept-Encoding: br"], matches: true),
        VaryCase(
            name: "same value", vary: ["Accept-Encoding"], stored: ["Accept-Encoding: gzip"],
            incoming: ["Accept-Encoding: gzip"], matches: true),
        VaryCase(
            name: "field names compare case-insensitively", vary: ["accept-encoding"],
            stored: ["Accept-Encoding: gzip"],
            incoming: ["ACCEPT-ENCODING: gzip"], matches: true),
        VaryCase(
            name: "different value", vary: ["Accept-Encoding"], stored: ["Accept-Encoding: gzip"],
            incoming: ["Accept-Encoding: br"], matches: false),
        VaryCase(
            name: "values compare case-sensitively", vary: ["Accept-Encoding"], stored: ["Accept-Encoding: gzip"],
            incoming: ["Accept-Encoding: GZIP"], matches: false),
        VaryCase(name: "absent in both", vary: ["Accept-Encoding"], stored: [], incoming: [], matches: true),
        VaryCase(
            name: "absent in the stored request only", vary: ["Accept-Encoding"], stored: [],
            incoming: ["Accept-Encoding: gzip"], matches: false),
        VaryCase(
            name: "absent in the new request only", vary: ["Accept-Encoding"], stored: ["Accept-Encoding: gzip"],
            incoming: [], matches: false),
        VaryCase(
            name: "empty is not absent", vary: ["Accept-Encoding"], stored: ["Accept-Encoding: "], incoming: [],
            matches: false),
        VaryCase(
            name: "surrounding whitespace is trimmed", vary: ["Accept-Encoding"], stored: ["Accept-Encoding: \tgzip "],
            incoming: ["Accept-Encoding: gzip"], matches: true),
        VaryCase(
            name: "repeated lines combine with a comma", vary: ["Accept-Language"],
            stored: ["Accept-Language: en", "Accept-Language: fr"], incoming: ["Accept-Language: en, fr"], matches: true
        ),
        VaryCase(
            name: "combined order matters", vary: ["Accept-Language"],
            stored: ["Accept-Language: fr", "Accept-Language: en"], incoming: ["Accept-Language: en, fr"],
            matches: false),
        VaryCase(
            name: "every named field must match", vary: ["Accept-Encoding", "Accept-Language"],
            stored: ["Accept-Encoding: gzip", "Accept-Language: en"],
            incoming: ["Accept-Encoding: gzip", "Accept-Language: fr"],
            matches: false),
        VaryCase(
            name: "fields Vary does not name are ignored", vary: ["Accept-Encoding"],
            stored: ["Accept-Encoding: gzip", "User-Agent: a"], incoming: ["Accept-Encoding: gzip", "User-Agent: b"],
            matches: true),
        VaryCase(name: "* never matches", vary: ["*"], stored: [], incoming: [], matches: false),
        VaryCase(
            name: "* among names never matches", vary: ["Accept-Encoding", "*"], stored: ["Accept-Encoding: gzip"],
            incoming: ["Accept-Encoding: gzip"], matches: false),
    ]

    @Test("a stored response is selected only when every field its Vary names matches (§4.1)", arguments: cases)
    func matching(_ row: VaryCase) {
        #expect(
            VaryMatch.matches(
                vary: row.vary, storedRequestHeaders: fields(row.stored), request: request("GET", row.incoming))
                == row.matches)
    }

    @Test(
        "two requests get the same secondary key exactly when they match (§4.1)",
        arguments: cases.filter { !$0.vary.contains("*") })
    func secondaryKeyAgreesWithMatching(_ row: VaryCase) {
        let storedKey = VaryMatch.secondaryKey(vary: row.vary, request: request("GET", row.stored))
        let incomingKey = VaryMatch.secondaryKey(vary: row.vary, request: request("GET", row.incoming))
        #expect((storedKey == incomingKey) == row.matches)
    }

    static let keys: [([String], [String], String)] = [
        ([], ["Accept-Encoding: gzip"], ""),
        (["Accept-Encoding"], ["Accept-Encoding: gzip"], "accept-encoding=gzip"),
        (["Accept-Encoding"], [], "accept-encoding"),
        (["Accept-Encoding"], ["Accept-Encoding:"], "accept-encoding="),
        (
            ["Accept-Language", "accept-encoding"], ["Accept-Encoding: gzip", "Accept-Language: en"],
            "accept-encoding=gzip\naccept-language=en"
        ),
        (
            ["Accept-Encoding", "Accept-Language", "ACCEPT-ENCODING"],
            ["Accept-Language: en", "Accept-Encoding: gzip"],
            "accept-encoding=gzip\naccept-language=en"
        ),
        (["Accept-Language"], ["Accept-Language: en", "Accept-Language: fr"], "accept-language=en, fr"),
    ]

    @Test("the secondary key lists the named fields sorted, lower-cased, once each (§4.1)", arguments: keys)
    func secondaryKeyText(vary: [String], lines: [String], key: String) {
        #expect(VaryMatch.secondaryKey(vary: vary, request: request("GET", lines)) == key)
    }

    @Test("the Vary field names are read from every Vary line of the response (§4.1)")
    func fieldNamesFromResponse() {
        let stored = response(200, ["Vary: Accept-Encoding, Accept-Language", "Vary: Origin"])
        #expect(VaryMatch.fieldNames(in: stored) == ["Accept-Encoding", "Accept-Language", "Origin"])
    }
}
