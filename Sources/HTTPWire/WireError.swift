/// Why a client's request could not be read. Every case is the client's fault; `status` is the response to send
/// before closing the connection, and `message` is the sentence to put in its body.
public enum WireError: Error, Sendable, Equatable {
    /// The request line is not `method SP request-target SP HTTP-version` (RFC 9112 §3).
    case badRequestLine(String)
    /// The request line exceeds `RequestParser.Limits.maxRequestLineBytes` (RFC 9112 §3).
    case uriTooLong
    /// A field line is malformed: obs-fold, no colon, whitespace before the colon, a name that is not a token,
    /// NUL, CR or LF in the value (RFC 9112 §5); or the request has more than one `Host` field (RFC 9112 §3.2).
    case badHeader(String)
    /// The header section exceeds `maxHeaderBytes` or `maxHeaderCount` (RFC 6585 §5).
    case headersTooLarge
    /// Both `Content-Length` and `Transfer-Encoding`; a server may reject such a request (RFC 9112 §6.1).
    case conflictingFraming
    /// `Content-Length` is not a non-negative decimal number, or several values differ (RFC 9112 §6.3).
    case badContentLength
    /// A transfer coding other than a single, final `chunked` (RFC 9112 §6.1); the payload names what was sent.
    case unsupportedTransferCoding(String)
    /// The chunked body is malformed (RFC 9112 §7.1).
    case badChunk(String)
    /// A well-formed version this proxy does not speak, such as `HTTP/2.0` (RFC 9110 §15.6.6).
    case unsupportedVersion(String)
    /// An absolute-form target whose scheme is not `http` or `https`; the payload is the scheme.
    case unsupportedScheme(String)
    /// The request target is not a form this method allows (RFC 9112 §3.2).
    case badTarget(String)

    /// The status code of the response that reports this error.
    public var status: Int {
        switch self {
        case .uriTooLong: 414
        case .headersTooLarge: 431
        case .unsupportedTransferCoding: 501
        case .unsupportedVersion: 505
        case .badRequestLine, .badHeader, .conflictingFraming, .badContentLength, .badChunk, .unsupportedScheme,
            .badTarget:
            400
        }
    }

    /// One short sentence a person can act on.
    public var message: String {
        switch self {
        case .badRequestLine(let detail):
            "The request line is malformed: \(detail)."
        case .uriTooLong:
            "The request line is longer than this proxy accepts; shorten the URL."
        case .badHeader(let detail):
            "A header field is malformed: \(detail)."
        case .headersTooLarge:
            "The request header section is larger than this proxy accepts; send fewer or smaller header fields."
        case .conflictingFraming:
            "The request has both Content-Length and Transfer-Encoding; send only one."
        case .badContentLength:
            "The Content-Length header is not a single non-negative number."
        case .unsupportedTransferCoding(let coding):
            "The transfer coding \"\(coding)\" is not supported; only \"chunked\" is."
        case .badChunk(let detail):
            "The chunked request body is malformed: \(detail)."
        case .unsupportedVersion(let version):
            "\(version) is not supported; this proxy speaks HTTP/1.0 and HTTP/1.1."
        case .unsupportedScheme(let scheme):
            "The scheme \"\(scheme)\" is not supported; this proxy forwards only http and https."
        case .badTarget(let detail):
            "The request target is invalid: \(detail)."
        }
    }
}
