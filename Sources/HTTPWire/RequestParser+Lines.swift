extension RequestParser {
    /// The outcome of looking for the end of the line that starts at `readIndex`.
    enum LineScan: Equatable {
        /// The line's content ends at `contentEnd` (before CRLF or LF); the next line starts at `lineEnd`.
        case line(contentEnd: Int, lineEnd: Int)
        case needMore
        /// No line end within the limit.
        case tooLong
        /// A CR not followed by LF (RFC 9112 §2.2: a bare CR must be rejected or replaced; we reject).
        case bareCR
    }

    /// Finds the end of the line at `readIndex`, accepting CRLF or a bare LF (RFC 9112 §2.2), where the line and its
    /// terminator must fit in `limit` bytes. Scanning resumes where the last call stopped. The outcome depends only
    /// on the bytes, never on how they were split across appends.
    mutating func scanLine(limit: Int) -> LineScan {
        let start = readIndex
        let available = buffer.count - start
        let limitReached = limit <= available
        let scanEnd = limitReached ? start + max(limit, 0) : buffer.count
        var index = start + lineScanned
        let found: LineScan? = buffer.withUnsafeBufferPointer { bytes in
            while index < scanEnd {
                let byte = bytes[index]
                if byte == HTTPSyntax.lf {
                    return .line(contentEnd: index, lineEnd: index + 1)
                }
                if byte == HTTPSyntax.cr {
                    if index + 1 == bytes.count { return .needMore }
                    if bytes[index + 1] != HTTPSyntax.lf { return .bareCR }
                    // The LF is past the limit only when the CR is the last byte the limit allows.
                    if index + 1 >= scanEnd { return .tooLong }
                    return .line(contentEnd: index, lineEnd: index + 2)
                }
                index += 1
            }
            return limitReached ? .tooLong : nil
        }
        switch found {
        case .some(.needMore), .none:
            lineScanned = index - start
            return .needMore
        case .some(let outcome):
            return outcome
        }
    }

    /// Parses `method SP request-target SP HTTP-version` (RFC 9112 §3) from `buffer[start..<end]`.
    func parseRequestLine(from start: Int, to end: Int) -> Result<PartialHead, WireError> {
        buffer.withUnsafeBufferPointer { all in
            let line = UnsafeBufferPointer(rebasing: all[start..<end])
            guard let firstSpace = line.firstIndex(of: HTTPSyntax.space),
                let lastSpace = line.lastIndex(of: HTTPSyntax.space), firstSpace != lastSpace
            else {
                return .failure(.badRequestLine("it is not a method, a target and a version separated by spaces"))
            }
            let method = UnsafeBufferPointer(rebasing: line[..<firstSpace])
            guard HTTPSyntax.isToken(method) else {
                return .failure(.badRequestLine("the method is not a token"))
            }
            let targetBytes = UnsafeBufferPointer(rebasing: line[(firstSpace + 1)..<lastSpace])
            if targetBytes.isEmpty {
                return .failure(.badRequestLine("the target is empty"))
            }
            // RFC 9112 §3.2: a target is a URI, so ASCII; anything else must arrive percent-encoded. Raw UTF-8 is
            // refused because Swift compares Strings by canonical equivalence: two byte sequences an origin tells
            // apart (NFC and NFD "é") would compare, and hash, equal in a cache key.
            for byte in targetBytes where byte <= HTTPSyntax.space || byte >= 0x7F {
                return .failure(.badRequestLine("the target has a space, a control character or a non-ASCII byte"))
            }
            let target = String(decoding: targetBytes, as: UTF8.self)
            let version: HTTPVersion
            switch Self.parseVersion(UnsafeBufferPointer(rebasing: line[(lastSpace + 1)...])) {
            case .success(let parsed): version = parsed
            case .failure(let error): return .failure(error)
            }
            var partial = PartialHead(
                method: String(decoding: method, as: UTF8.self), target: target, version: version)
            // Typical requests carry 5 to 15 fields; one allocation up front instead of four doublings.
            partial.fields.reserveCapacity(16)
            return .success(partial)
        }
    }

    /// Parses `HTTP-name "/" DIGIT "." DIGIT` (RFC 9112 §2.3). Only major version 1 is spoken; a higher minor
    /// version is kept, since 1.x recipients treat it as the highest 1.x they know (RFC 9110 §2.5).
    static func parseVersion(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<HTTPVersion, WireError> {
        guard bytes.count == 8, bytes[0] == 0x48, bytes[1] == 0x54, bytes[2] == 0x54, bytes[3] == 0x50,
            bytes[4] == 0x2F, bytes[6] == 0x2E,
            let major = HTTPSyntax.digitValue(bytes[5]), let minor = HTTPSyntax.digitValue(bytes[7])
        else {
            return .failure(.badRequestLine("the version is not HTTP/x.y"))
        }
        let version = HTTPVersion(major: major, minor: minor)
        guard major == 1 else { return .failure(.unsupportedVersion(version.description)) }
        return .success(version)
    }

    /// Parses `field-name ":" OWS field-value OWS` (RFC 9112 §5) from `buffer[start..<end]`; the name keeps its case.
    func parseFieldLine(from start: Int, to end: Int) -> Result<HTTPField, WireError> {
        buffer.withUnsafeBufferPointer { all in
            let line = UnsafeBufferPointer(rebasing: all[start..<end])
            // RFC 9112 §5.2: a server must reject obs-fold (or replace it); §2.2 likewise whitespace after the
            // start line. Both show up as a line that starts with whitespace.
            if HTTPSyntax.isWhitespace(line[0]) {
                return .failure(.badHeader("a line starts with whitespace (obsolete line folding)"))
            }
            guard let colon = line.firstIndex(of: HTTPSyntax.colon) else {
                return .failure(.badHeader("a line has no colon"))
            }
            let name = UnsafeBufferPointer(rebasing: line[..<colon])
            if name.isEmpty {
                return .failure(.badHeader("a field name is empty"))
            }
            // RFC 9112 §5.1: whitespace between name and colon must be rejected with 400.
            if HTTPSyntax.isWhitespace(name[name.count - 1]) {
                return .failure(.badHeader("whitespace between a field name and its colon"))
            }
            guard HTTPSyntax.isToken(name) else {
                return .failure(.badHeader("a field name contains a character that is not allowed"))
            }
            var valueStart = colon + 1
            var valueEnd = line.count
            while valueStart < valueEnd, HTTPSyntax.isWhitespace(line[valueStart]) { valueStart += 1 }
            while valueEnd > valueStart, HTTPSyntax.isWhitespace(line[valueEnd - 1]) { valueEnd -= 1 }
            let value = UnsafeBufferPointer(rebasing: line[valueStart..<valueEnd])
            // RFC 9110 §5.5: NUL, CR and LF in a value are dangerous; reject rather than pass them on.
            for byte in value where byte == 0 || byte == HTTPSyntax.cr || byte == HTTPSyntax.lf {
                return .failure(.badHeader("a field value contains NUL, CR or LF"))
            }
            return .success(
                HTTPField(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
            )
        }
    }

    /// The most hex digits a chunk-size may have; more could not be a size anyone means to send.
    static let maxChunkSizeDigits = 16

    /// Parses `chunk-size [ chunk-ext ]` (RFC 9112 §7.1) from `buffer[start..<end]`; extensions are ignored.
    func parseChunkSize(from start: Int, to end: Int) -> Result<Int, WireError> {
        buffer.withUnsafeBufferPointer { all in
            let line = UnsafeBufferPointer(rebasing: all[start..<end])
            var size = 0
            var index = 0
            while index < line.count, let digit = HTTPSyntax.hexValue(line[index]) {
                if index == Self.maxChunkSizeDigits {
                    return .failure(.badChunk("a chunk-size has more than \(Self.maxChunkSizeDigits) hex digits"))
                }
                let (shifted, overflow) = size.multipliedReportingOverflow(by: 16)
                if overflow {
                    return .failure(.badChunk("a chunk-size is too large"))
                }
                size = shifted | digit
                index += 1
            }
            if index == 0 {
                return .failure(.badChunk("a chunk-size is not a hex number"))
            }
            // chunk-ext = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] ), ignored.
            while index < line.count, HTTPSyntax.isWhitespace(line[index]) { index += 1 }
            if index < line.count, line[index] != 0x3B {
                return .failure(.badChunk("a chunk-size is followed by something other than an extension"))
            }
            return .success(size)
        }
    }
}
