/// The chunked transfer coding for outgoing bodies (RFC 9112 §7.1): for each piece of data send
/// `chunkHeader(size:)`, the data, then `chunkTrailer`; end the body with `lastChunk`.
public enum ChunkedEncoding {
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// `chunk-size CRLF` in lowercase hex, e.g. "1a2b\r\n". A size of 0 would end the body, so data chunks
    /// must not be empty.
    public static func chunkHeader(size: Int) -> [UInt8] {
        precondition(size >= 0, "a chunk size cannot be negative")
        var digits: [UInt8] = []
        var remaining = size
        repeat {
            digits.append(hexDigits[remaining & 0xF])
            remaining >>= 4
        } while remaining > 0
        digits.reverse()
        digits.append(HTTPSyntax.cr)
        digits.append(HTTPSyntax.lf)
        return digits
    }

    /// The CRLF that follows a chunk's data.
    public static let chunkTrailer: [UInt8] = [HTTPSyntax.cr, HTTPSyntax.lf]

    /// The zero-size chunk and the empty trailer section that end a chunked body.
    public static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)
}
