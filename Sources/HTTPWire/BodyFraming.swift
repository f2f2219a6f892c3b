/// How the body of a request is delimited on the wire (RFC 9112 §6.3).
public enum BodyFraming: Sendable, Equatable {
    /// Neither `Content-Length` nor `Transfer-Encoding`: the request has no body.
    case none
    /// `Content-Length`: exactly this many bytes follow the header section.
    case length(Int)
    /// `Transfer-Encoding: chunked`: the body ends with a zero-size chunk and an optional trailer section.
    case chunked
}
