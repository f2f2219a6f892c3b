extension RequestHead {
    /// `GET /path HTTP/1.1\r\n`, then each field as `Name: value\r\n` in order, then `\r\n` (RFC 9112 §3).
    public func serialized() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(12 + method.utf8.count + target.utf8.count + headers.serializedSizeEstimate)
        HTTPHeaders.appendSanitized(method, to: &bytes)
        bytes.append(HTTPSyntax.space)
        HTTPHeaders.appendSanitized(target, to: &bytes)
        bytes.append(HTTPSyntax.space)
        version.append(to: &bytes)
        bytes.append(HTTPSyntax.cr)
        bytes.append(HTTPSyntax.lf)
        headers.serialize(into: &bytes)
        return bytes
    }
}
