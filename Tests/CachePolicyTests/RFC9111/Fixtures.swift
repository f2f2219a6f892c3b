import CachePolicy
import HTTPWire

/// The fixed clock every test reads: 2023-11-14T22:13:20Z. Offsets are seconds after it.
let t0: Int64 = 1_700_000_000

/// The IMF-fixdate `offset` seconds after `t0` (RFC 9110 §5.6.7).
func date(_ offset: Int64) -> String {
    HTTPDate.format(secondsSince1970: t0 + offset)
}

/// Header fields from "Name: value" lines, in order.
func fields(_ lines: [String]) -> HTTPHeaders {
    HTTPHeaders(
        lines.map { line in
            // Fixtures are always written "Name: value".
            let colon = line.firstIndex(of: ":")!
            return HTTPField(String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingHTTPWhitespace())
        }
    )
}

func response(_ status: Int = 200, _ lines: [String] = []) -> ResponseHead {
    ResponseHead(status: status, headers: fields(lines))
}

func request(_ method: String = "GET", _ lines: [String] = []) -> RequestHead {
    RequestHead(method: method, target: "http://example.test/a", headers: fields(lines))
}

/// A stored entry whose exchange happened at `t0 + requestTime` ... `t0 + responseTime`.
func entry(
    _ response: ResponseHead,
    requestTime: Int64 = 0,
    responseTime: Int64 = 0,
    requestLines: [String] = []
) -> StoredEntryView {
    StoredEntryView(
        response: response,
        times: StoredTimes(requestTime: t0 + requestTime, responseTime: t0 + responseTime),
        requestHeaders: fields(requestLines)
    )
}

/// "Name: value" lines of a head, for readable comparisons.
func lines(_ headers: HTTPHeaders) -> [String] {
    headers.fields.map { "\($0.name): \($0.value)" }
}
