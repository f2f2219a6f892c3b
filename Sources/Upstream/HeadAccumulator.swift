import HTTPWire

/// Builds a `ResponseHead` from the header lines libcurl hands over one at a time.
struct HeadAccumulator {
    enum Step {
        case needMore
        /// A 1xx head ended; the final one follows.
        case interim
        case complete(ResponseHead)
        case invalid(UpstreamError)
    }

    /// The most header bytes Larder accepts from an origin (as for requests: 64 KiB).
    static let maxHeadBytes = 64 * 1024

    private var status: (version: HTTPVersion, code: Int, reason: String)?
    private var fields: [HTTPField] = []
    private var bytes = 0

    mutating func consume(_ rawLine: UnsafeRawBufferPointer) -> Step {
        bytes += rawLine.count
        if bytes > Self.maxHeadBytes {
            return .invalid(UpstreamError(.headerSectionTooLarge, details: "response header section over 64 KiB"))
        }
        var line = rawLine[...]
        while let last = line.last, last == 0x0A || last == 0x0D { line = line.dropLast() }
        guard let status else {
            guard let parsed = Self.parseStatusLine(line) else {
                return .invalid(UpstreamError(.protocolError, details: "invalid status line"))
            }
            self.status = parsed
            // Room for a typical head at once, rather than growing through five arrays on the way to ten fields.
            fields.reserveCapacity(16)
            return .needMore
        }
        if line.isEmpty {
            defer { reset() }
            if (100..<200).contains(status.code) { return .interim }
            return .complete(
                ResponseHead(version: status.version, status: status.code, reason: status.reason, headers: HTTPHeaders(fields))
            )
        }
        if line.first == 0x20 || line.first == 0x09 {
            // obs-fold in a response: RFC 9112 §5.2 lets a proxy replace it with a space.
            guard !fields.isEmpty else { return .invalid(UpstreamError(.protocolError, details: "folded first header line")) }
            fields[fields.count - 1].value += " " + String(decoding: line, as: UTF8.self).trimmingHTTPWhitespace()
            return .needMore
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else {
            return .invalid(UpstreamError(.protocolError, details: "header line without a field name"))
        }
        let name = line[line.startIndex..<colon]
        guard !name.contains(where: ASCII.isWhitespace) else {
            return .invalid(UpstreamError(.protocolError, details: "whitespace in header field name"))
        }
        // Trimmed as bytes, so each field costs its two strings and nothing more.
        let value = ASCII.trimmingWhitespace(
            UnsafeRawBufferPointer(rebasing: line[(colon + 1)...]).assumingMemoryBound(to: UInt8.self))
        fields.append(HTTPField(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
        return .needMore
    }

    private mutating func reset() {
        status = nil
        fields = []
        bytes = 0
    }

    /// `HTTP/1.1 200 OK`; libcurl also reports HTTP/2 heads as `HTTP/2 200`. Read as bytes: it comes once per
    /// response, and splitting it into strings cost more allocations than the rest of a small head.
    static func parseStatusLine(_ line: Slice<UnsafeRawBufferPointer>) -> (HTTPVersion, Int, String)? {
        let text = UnsafeRawBufferPointer(rebasing: line)
        guard let firstSpace = text.firstIndex(of: 0x20), text.starts(with: "HTTP/".utf8) else { return nil }
        let major = text[5..<firstSpace].prefix { $0 != UInt8(ascii: ".") }
        guard (1...3).contains(major.count), major.allSatisfy(isDigit), major.first != UInt8(ascii: "0") else {
            return nil
        }
        let codeEnd = firstSpace + 4
        guard codeEnd <= text.count, text[(firstSpace + 1)..<codeEnd].allSatisfy(isDigit),
            codeEnd == text.count || text[codeEnd] == 0x20
        else { return nil }
        let code = text[(firstSpace + 1)..<codeEnd].reduce(0) { $0 * 10 + (ASCII.digitValue($1) ?? 0) }
        guard code >= 100 else { return nil }
        let reason =
            codeEnd < text.count
            ? String(decoding: text[(codeEnd + 1)...], as: UTF8.self) : ResponseHead.standardReason(for: code)
        // Whatever the origin spoke, Larder answers its client in HTTP/1.1.
        return (.http1_1, code, reason)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { ASCII.digitValue(byte) != nil }
}
