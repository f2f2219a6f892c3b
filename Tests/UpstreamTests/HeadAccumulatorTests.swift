import HTTPWire
import Testing

@testable import Upstream

/// The origin's head as libcurl hands it over, one line at a time.
@Suite("Upstream head lines")
struct HeadAccumulatorTests {
    struct StatusCase: Sendable, CustomTestStringConvertible {
        let line: String
        /// Nil when the line must be refused.
        let expected: (code: Int, reason: String)?
        var testDescription: String { line.debugDescription }
    }

    @Test(
        "status lines",
        arguments: [
            StatusCase(line: "HTTP/1.1 200 OK", expected: (200, "OK")),
            StatusCase(line: "HTTP/1.0 404 Not Found Here", expected: (404, "Not Found Here")),
            StatusCase(line: "HTTP/2 204", expected: (204, "No Content")),
            StatusCase(line: "HTTP/1.1 200 ", expected: (200, "")),
            StatusCase(line: "HTTP/1.1 599 Odd", expected: (599, "Odd")),
            StatusCase(line: "HTTP/1.1 20", expected: nil),
            StatusCase(line: "HTTP/1.1 2000 Too long", expected: nil),
            StatusCase(line: "HTTP/1.1 099 Too small", expected: nil),
            StatusCase(line: "HTTP/1.1 2x0 Letters", expected: nil),
            StatusCase(line: "HTTP/0.9 200 OK", expected: nil),
            StatusCase(line: "HTTX/1.1 200 OK", expected: nil),
            StatusCase(line: "HTTP/ 200 OK", expected: nil),
            StatusCase(line: "HTTP/1.1", expected: nil),
            StatusCase(line: "", expected: nil),
        ])
    func statusLine(_ test: StatusCase) {
        var head = HeadAccumulator()
        let step = feed(&head, test.line + "\r\n")
        guard let expected = test.expected else {
            guard case .invalid = step else {
                Issue.record("accepted: \(step)")
                return
            }
            return
        }
        guard case .needMore = step else {
            Issue.record("refused: \(step)")
            return
        }
        guard case .complete(let response) = feed(&head, "\r\n") else {
            Issue.record("no head")
            return
        }
        #expect(response.status == expected.code)
        #expect(response.reason == expected.reason)
        #expect(response.version == .http1_1)
    }

    @Test("field values lose surrounding spaces and tabs; names keep their case; a 1xx head is skipped")
    func fields() {
        var head = HeadAccumulator()
        for line in ["HTTP/1.1 100 Continue", "", "HTTP/1.1 200 OK", "Content-Type: \t text/plain \t", "X-Empty:",
                     "Cache-Control:public"] {
            _ = feed(&head, line + "\r\n")
        }
        guard case .complete(let response) = feed(&head, "\r\n") else {
            Issue.record("no head")
            return
        }
        #expect(response.status == 200)
        #expect(response.headers.map(\.name) == ["Content-Type", "X-Empty", "Cache-Control"])
        #expect(response.headers.map(\.value) == ["text/plain", "", "public"])
    }

    @Test("whitespace in a field name is refused")
    func whitespaceInName() {
        var head = HeadAccumulator()
        _ = feed(&head, "HTTP/1.1 200 OK\r\n")
        guard case .invalid = feed(&head, "Bad Name: x\r\n") else {
            Issue.record("accepted")
            return
        }
    }

    private func feed(_ head: inout HeadAccumulator, _ line: String) -> HeadAccumulator.Step {
        Array(line.utf8).withUnsafeBytes { head.consume($0) }
    }
}
