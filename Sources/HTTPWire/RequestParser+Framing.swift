extension RequestParser {
    /// Decides how a request's body is delimited (RFC 9112 §6.3), rejecting every ambiguity a request smuggler
    /// could use: both headers, an HTTP/1.0 transfer coding, codings other than a lone `chunked`, or lengths
    /// that disagree.
    static func framing(of fields: [HTTPField], version: HTTPVersion) -> Result<BodyFraming, WireError> {
        var transferEncodings: [String] = []
        var contentLengths: [String] = []
        for field in fields {
            if field.name.equalsIgnoringASCIICase("Transfer-Encoding") {
                transferEncodings.append(field.value)
            } else if field.name.equalsIgnoringASCIICase("Content-Length") {
                contentLengths.append(field.value)
            }
        }

        if !transferEncodings.isEmpty {
            // RFC 9112 §6.1: a server may reject a request with both, and ought to, since either may be a lie.
            if !contentLengths.isEmpty { return .failure(.conflictingFraming) }
            // RFC 9112 §6.1: Transfer-Encoding in HTTP/1.0 must be treated as faulty framing.
            if version == .http1_0 {
                return .failure(.badHeader("Transfer-Encoding is not allowed in an HTTP/1.0 request"))
            }
            let codings = transferEncodings.flatMap(HTTPHeaders.splitList)
            // RFC 9112 §6.1: chunked must be the final coding; we decode no others, so it must be the only one (501).
            guard codings.count == 1, codings[0].equalsIgnoringASCIICase("chunked") else {
                return .failure(.unsupportedTransferCoding(transferEncodings.joined(separator: ", ")))
            }
            return .success(.chunked)
        }

        if !contentLengths.isEmpty {
            var length: Int?
            for value in contentLengths {
                // RFC 9112 §6.3: a list of identical values ("5, 5") may be taken as that one value.
                for element in value.utf8.split(separator: 0x2C, omittingEmptySubsequences: false) {
                    guard let parsed = parseDecimal(element), length == nil || length == parsed else {
                        return .failure(.badContentLength)
                    }
                    length = parsed
                }
            }
            // Non-empty `contentLengths` yields at least one element, so `length` is set.
            return .success(.length(length ?? 0))
        }

        return .success(.none)
    }

    /// `1*DIGIT` surrounded by optional whitespace, as a non-negative Int; nil when malformed or too large.
    private static func parseDecimal(_ bytes: Substring.UTF8View) -> Int? {
        var digitsStart = bytes.startIndex
        var digitsEnd = bytes.endIndex
        while digitsStart < digitsEnd, HTTPSyntax.isWhitespace(bytes[digitsStart]) {
            digitsStart = bytes.index(after: digitsStart)
        }
        while digitsEnd > digitsStart, HTTPSyntax.isWhitespace(bytes[bytes.index(before: digitsEnd)]) {
            digitsEnd = bytes.index(before: digitsEnd)
        }
        if digitsStart == digitsEnd { return nil }
        var value = 0
        for byte in bytes[digitsStart..<digitsEnd] {
            guard let digit = HTTPSyntax.digitValue(byte) else { return nil }
            let (shifted, overflowMultiplying) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowAdding) = shifted.addingReportingOverflow(digit)
            if overflowMultiplying || overflowAdding { return nil }
            value = sum
        }
        return value
    }
}
