import Foundation

/// What the origin does with one request: a scripted response, optionally delayed or broken on purpose.
///
/// The origin adds `Content-Length` (unless the body is chunked, the status has no body, or `headers` already
/// frame it) and `X-Origin-Seq: <request sequence>`. A HEAD request gets the head only.
struct OriginResponse: Sendable {
    var status: Int = 200
    /// Defaults to the standard phrase for `status`.
    var reason: String? = nil
    /// Sent in order; repeats allowed (two `Set-Cookie`, say).
    var headers: [(String, String)] = []
    var body: Body = .bytes([])
    /// Waited before anything is sent; a stopping server cuts it short.
    var delay: Duration = .zero
    var fault: Fault? = nil

    enum Body: Sendable {
        case bytes([UInt8])
        /// `count` bytes where byte `i` is `UInt8(i % 251)`, streamed in 64 KiB writes and never held whole.
        case generated(count: Int)
        /// Sent with `Transfer-Encoding: chunked`, one chunk per element (empty elements are skipped).
        case chunked([[UInt8]])

        /// The payload length, whatever the framing.
        var count: Int {
            switch self {
            case .bytes(let bytes): bytes.count
            case .generated(let count): count
            case .chunked(let chunks): chunks.reduce(0) { $0 + $1.count }
            }
        }

        /// The byte `.generated` puts at `offset`; tests check received bodies against it.
        static func generatedByte(at offset: Int) -> UInt8 { UInt8(offset % 251) }
    }

    enum Fault: Sendable {
        /// Reads the request, then closes without a byte.
        case closeWithoutResponse
        /// Writes `NOT HTTP\r\n\r\n` and closes.
        case garbage
        /// Sends the head with the full length, then only `afterBytes` body bytes, then closes.
        /// With a chunked body, the cut falls after that many payload bytes and no last chunk is sent.
        case cutBody(afterBytes: Int)
        /// Reads the request and never answers, until the server stops or the client goes away.
        case stall
        /// Sends the head with the full length and `afterBytes` body bytes, then sends nothing more, until the server
        /// stops or the client goes away: a response that is surely still arriving.
        case stallBody(afterBytes: Int)
    }

    /// 200 with a UTF-8 body.
    static func ok(_ body: String, _ headers: [(String, String)] = []) -> OriginResponse {
        OriginResponse(headers: headers, body: .bytes(Array(body.utf8)))
    }

    /// 200 with a UTF-8 body and a `Cache-Control` field (sent first).
    static func ok(_ body: String, cacheControl: String, _ headers: [(String, String)] = []) -> OriginResponse {
        ok(body, [("Cache-Control", cacheControl)] + headers)
    }

    /// A `Date` field (IMF-fixdate, RFC 9110 §5.6.7) for `date`; the origin sends none unless a test adds one.
    static func dateHeader(_ date: Date = Date()) -> (String, String) {
        ("Date", httpDate(date))
    }

    /// `date` as an IMF-fixdate, for `Date`, `Last-Modified` and `Expires` fields.
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
