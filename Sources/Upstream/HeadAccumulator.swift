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
        let name = String(decoding: line[line.startIndex..<colon], as: UTF8.self)
        guard !name.utf8.contains(where: { $0 == 0x20 || $0 == 0x09 }) else {
            return .invalid(UpstreamError(.protocolError, details: "whitespace in header field name"))
        }
        let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingHTTPWhitespace()
        fields.append(HTTPField(name, value))
        return .needMore
    }

    private mutating func reset() {
        status = nil
        fields = []
        bytes = 0
    }

    /// `HTTP/1.1 200 OK`; libcurl also reports HTTP/2 heads as `HTTP/2 200`.
    static func parseStatusLine(_ line: Slice<UnsafeRawBufferPointer>) -> (HTTPVersion, Int, String)? {
        let text = String(decoding: line, as: UTF8.self)
        let parts = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/") else { return nil }
        let versionText = parts[0].dropFirst(5)
        let numbers = versionText.split(separator: ".")
        guard let major = Int(numbers.first ?? ""), major >= 1 else { return nil }
        guard parts[1].utf8.count == 3, let code = Int(parts[1]), (100...999).contains(code) else { return nil }
        let reason = parts.count > 2 ? String(parts[2]) : ResponseHead.standardReason(for: code)
        // Whatever the origin spoke, Larder answers its client in HTTP/1.1.
        return (.http1_1, code, reason)
    }
}
