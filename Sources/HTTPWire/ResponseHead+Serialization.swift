extension ResponseHead {
    /// `HTTP/1.1 200 OK\r\n`, then each field as `Name: value\r\n` in order, then `\r\n` (RFC 9112 §4).
    /// An empty reason still leaves the space after the status code, as the grammar requires.
    public func serialized() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16 + reason.utf8.count + headers.serializedSizeEstimate)
        version.append(to: &bytes)
        bytes.append(HTTPSyntax.space)
        HTTPSyntax.appendDecimal(status, to: &bytes)
        bytes.append(HTTPSyntax.space)
        HTTPHeaders.appendSanitized(reason, to: &bytes)
        bytes.append(HTTPSyntax.cr)
        bytes.append(HTTPSyntax.lf)
        headers.serialize(into: &bytes)
        return bytes
    }
}
