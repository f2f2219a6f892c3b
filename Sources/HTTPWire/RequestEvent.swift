/// What `RequestParser` found next in the byte stream.
public enum RequestEvent: Sendable, Equatable {
    /// A complete request line and header section, and how its body is framed.
    case head(RequestHead, framing: BodyFraming)
    /// Body bytes, de-chunked, delivered as they arrive, in pieces of any size above zero.
    case body([UInt8])
    /// The end of the current request's body; emitted right after `.head` when the request has no body.
    case end
    /// The stream is malformed; the parser is finished and the connection should be closed after replying.
    case error(WireError)
}
