extension ResponseHead {
    /// `HTTP/1.1 200 OK\r\n`, then each field as `Name: value\r\n` in order, then `\r\n` (RFC 9112 §4).
    /// An empty reason still leaves the space after the status code, as the grammar requires.
    public func serialized() -> [UInt8] {
        var builder = ResponseHeadBuilder(statusLineOf: self, extraCapacity: 0)
        builder.add(fieldsOf: headers, skipping: { _ in false })
        return builder.finished()
    }
}
