import CachePolicy
import HTTPWire
import Testing

/// One row of the client-conditional table: the request's fields and whether a 304 may answer it.
struct ConditionCase: Sendable, CustomTestStringConvertible {
    var name: String
    var status = 200
    var stored: [String] = ["Date: \(date(0))", "ETag: \"v1\"", "Last-Modified: \(date(-100))"]
    var responseTime: Int64 = 0
    var incoming: [String]
    var matches: Bool

    var testDescription: String { name }
}

/// One row of the 304-update table (§4.3.4).
struct UpdateCase: Sendable, CustomTestStringConvertible {
    var name: String
    var stored: [String]
    var notModified: [String]
    var receivedAt: Int64?
    var expected: [String]

    var testDescription: String { name }
}

@Suite("RFC 9111 §4.3 validation")
struct ValidationTests {
    static let conditional: [([String], [String])] = [
        (["ETag: \"v1\""], ["If-None-Match: \"v1\""]),
        (["ETag: W/\"v1\""], ["If-None-Match: W/\"v1\""]),
        (["Last-Modified: \(date(-100))"], ["If-Modified-Since: \(date(-100))"]),
        (
            ["ETag: \"v1\"", "Last-Modified: \(date(-100))"],
            ["If-None-Match: \"v1\"", "If-Modified-Since: \(date(-100))"]
        ),
        (["Date: \(date(0))"], ["If-Modified-Since: \(date(0))"]),
        (["Date: \(date(0))", "Last-Modified: \(date(-100))"], ["If-Modified-Since: \(date(-100))"]),
        (["Date: \(date(0))", "Last-Modified: long ago"], ["If-Modified-Since: \(date(0))"]),
        (["Date: \(date(0))", "ETag: \"v1\""], ["If-None-Match: \"v1\""]),
        (["Date: soon"], []),
        ([], []),
    ]

    @Test(
        "validation sends the stored ETag as If-None-Match and Last-Modified, else Date, as If-Modified-Since (§4.3.1)",
        arguments: conditional)
    func conditionalRequest(stored: [String], expected: [String]) {
        #expect(lines(RFC9111.conditionalHeaders(for: response(200, stored))) == expected)
    }

    static let clientConditions: [ConditionCase] = [
        ConditionCase(name: "no condition", incoming: [], matches: false),
        ConditionCase(name: "If-None-Match with the stored tag", incoming: ["If-None-Match: \"v1\""], matches: true),
        ConditionCase(name: "weak comparison: W/ in the request", incoming: ["If-None-Match: W/\"v1\""], matches: true),
        ConditionCase(
            name: "weak comparison: W/ in the stored tag", stored: ["ETag: W/\"v1\""],
            incoming: ["If-None-Match: \"v1\""],
            matches: true),
        ConditionCase(name: "another tag", incoming: ["If-None-Match: \"v2\""], matches: false),
        ConditionCase(name: "one of a list", incoming: ["If-None-Match: \"v0\", \"v1\""], matches: true),
        ConditionCase(
            name: "one of several lines", incoming: ["If-None-Match: \"v0\"", "If-None-Match: \"v1\""], matches: true),
        ConditionCase(name: "*", incoming: ["If-None-Match: *"], matches: true),
        ConditionCase(
            name: "a tag when nothing stored has one", stored: ["Date: \(date(0))"],
            incoming: ["If-None-Match: \"v1\""],
            matches: false),
        ConditionCase(
            name: "If-None-Match decides over If-Modified-Since",
            incoming: ["If-None-Match: \"v2\"", "If-Modified-Since: \(date(0))"], matches: false),
        ConditionCase(
            name: "If-Modified-Since equal to Last-Modified", incoming: ["If-Modified-Since: \(date(-100))"],
            matches: true),
        ConditionCase(
            name: "If-Modified-Since after Last-Modified", incoming: ["If-Modified-Since: \(date(-50))"], matches: true),
        ConditionCase(
            name: "If-Modified-Since before Last-Modified", incoming: ["If-Modified-Since: \(date(-101))"],
            matches: false),
        ConditionCase(
            name: "invalid If-Modified-Since is ignored", incoming: ["If-Modified-Since: yesterday"], matches: false),
        ConditionCase(
            name: "two If-Modified-Since lines are ignored",
            incoming: ["If-Modified-Since: \(date(0))", "If-Modified-Since: \(date(0))"], matches: false),
        ConditionCase(
            name: "without Last-Modified, Date is compared", stored: ["Date: \(date(0))"],
            incoming: ["If-Modified-Since: \(date(0))"], matches: true),
        ConditionCase(
            name: "without Last-Modified, Date is compared (earlier)", stored: ["Date: \(date(0))"],
            incoming: ["If-Modified-Since: \(date(-1))"], matches: false),
        ConditionCase(
            name: "without either, the receive time is compared", stored: [], responseTime: 5,
            incoming: ["If-Modified-Since: \(date(5))"], matches: true),
        ConditionCase(
            name: "without either, the receive time is compared (earlier)", stored: [], responseTime: 5,
            incoming: ["If-Modified-Since: \(date(4))"], matches: false),
        ConditionCase(
            name: "a stored 404 is never answered 304", status: 404, incoming: ["If-None-Match: *"], matches: false),
    ]

    @Test(
        "a client's conditional request is evaluated against the stored response (§4.3.2)", arguments: clientConditions)
    func clientConditional(_ row: ConditionCase) {
        let stored = entry(
            response(row.status, row.stored), requestTime: row.responseTime, responseTime: row.responseTime)
        #expect(RFC9111.clientConditionMatches(request("GET", row.incoming), stored: stored) == row.matches)
    }

    static let updates: [UpdateCase] = [
        UpdateCase(
            name: "fields in the 304 replace the stored ones, in the stored order",
            stored: [
                "Date: \(date(0))", "Content-Type: text/plain", "Cache-Control: max-age=60", "ETag: \"v1\"",
                "Content-Length: 5",
            ],
            notModified: ["Cache-Control: max-age=120", "Date: \(date(100))", "ETag: \"v1\""],
            expected: [
                "Date: \(date(100))", "Content-Type: text/plain", "Cache-Control: max-age=120", "ETag: \"v1\"",
                "Content-Length: 5",
            ]
        ),
        UpdateCase(
            name: "every stored line of a name is replaced, where the first was",
            stored: ["X-Multi: a", "Content-Type: text/plain", "X-Multi: b"],
            notModified: ["X-Multi: c"],
            expected: ["X-Multi: c", "Content-Type: text/plain"]
        ),
        UpdateCase(
            name: "several lines in the 304 all replace",
            stored: ["Link: <a>", "Content-Type: text/plain"],
            notModified: ["Link: <b>", "Link: <c>"],
            expected: ["Link: <b>", "Link: <c>", "Content-Type: text/plain"]
        ),
        UpdateCase(
            name: "names the stored response lacks are appended in the 304's order",
            stored: ["Content-Type: text/plain"],
            notModified: ["X-B: 2", "X-A: 1"],
            expected: ["Content-Type: text/plain", "X-B: 2", "X-A: 1"]
        ),
        UpdateCase(
            name: "names compare case-insensitively",
            stored: ["cache-control: max-age=60"],
            notModified: ["Cache-Control: max-age=120"],
            expected: ["Cache-Control: max-age=120"]
        ),
        UpdateCase(
            name: "Content-Length and framing are never taken from the 304",
            stored: ["Content-Length: 5"],
            notModified: ["Content-Length: 0", "Transfer-Encoding: chunked"],
            expected: ["Content-Length: 5"]
        ),
        UpdateCase(
            name: "hop-by-hop and Proxy-* fields of the 304 are not stored",
            stored: ["Content-Type: text/plain"],
            notModified: [
                "Connection: close, X-Hop", "X-Hop: h", "Keep-Alive: timeout=5", "Proxy-Authenticate: Basic",
                "X-Kept: k",
            ],
            expected: ["Content-Type: text/plain", "X-Kept: k"]
        ),
        UpdateCase(
            name: "the stored Age is dropped when the 304 has none",
            stored: ["Age: 30", "Content-Type: text/plain"],
            notModified: ["ETag: \"v1\""],
            expected: ["Content-Type: text/plain", "ETag: \"v1\""]
        ),
        UpdateCase(
            name: "the 304's Age replaces the stored one",
            stored: ["Age: 30", "Content-Type: text/plain"],
            notModified: ["Age: 2"],
            expected: ["Age: 2", "Content-Type: text/plain"]
        ),
        UpdateCase(
            name: "a 304 without Date gets the time it was received",
            stored: ["Date: \(date(0))", "Content-Type: text/plain"],
            notModified: ["ETag: \"v1\""], receivedAt: t0 + 100,
            expected: ["Date: \(date(100))", "Content-Type: text/plain", "ETag: \"v1\""]
        ),
        UpdateCase(
            name: "a 304 with Date keeps its own Date",
            stored: ["Date: \(date(0))"],
            notModified: ["Date: \(date(90))"], receivedAt: t0 + 100,
            expected: ["Date: \(date(90))"]
        ),
    ]

    @Test("a 304 updates the stored header fields (§4.3.4, §3.2)", arguments: updates)
    func notModifiedUpdates(_ row: UpdateCase) {
        let updated = RFC9111.updatedResponse(
            stored: response(200, row.stored), with: response(304, row.notModified), receivedAt: row.receivedAt
        )
        #expect(lines(updated.headers) == row.expected)
    }

    @Test("a 304 keeps the stored status line (§4.3.4)")
    func keepsStatusLine() {
        let stored = ResponseHead(version: .http1_0, status: 203, reason: "Fine", headers: fields(["ETag: \"v1\""]))
        let updated = RFC9111.updatedResponse(stored: stored, with: response(304, ["ETag: \"v1\""]))
        #expect(updated.status == 203)
        #expect(updated.reason == "Fine")
        #expect(updated.version == .http1_0)
    }

    @Test("after a 304 and its exchange times, a stale entry is fresh again (§4.3.4, §4.2.3)")
    func notModifiedRefreshesFreshness() {
        let stale = entry(response(200, ["Date: \(date(0))", "Cache-Control: max-age=60", "ETag: \"v1\"", "Age: 10"]))
        guard case .revalidate = RFC9111.plan(request: request(), entry: stale, now: t0 + 100) else {
            Issue.record("the entry should need validation before the 304")
            return
        }
        let updated = RFC9111.updatedResponse(
            stored: stale.response, with: response(304, ["Date: \(date(100))", "ETag: \"v1\""]))
        let refreshed = StoredEntryView(
            response: updated, times: StoredTimes(requestTime: t0 + 99, responseTime: t0 + 100), requestHeaders: [:]
        )
        #expect(RFC9111.plan(request: request(), entry: refreshed, now: t0 + 110) == .serve(age: 11, ttl: 49))
    }
}
