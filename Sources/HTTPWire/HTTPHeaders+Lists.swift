extension HTTPHeaders {
    /// The comma-separated list elements of every `name` field, trimmed, empty ones dropped
    /// (RFC 9110 §5.6.1). Quoted strings are not split.
    public func listElements(_ name: String) -> [String] {
        var elements: [String] = []
        forEachListElement(name) { elements.append(String(decoding: $0, as: UTF8.self)) }
        return elements
    }

    /// True when a list field (e.g. `Connection`, `Vary`) holds `token`, compared case-insensitively.
    public func listContains(_ name: String, token: String) -> Bool {
        token.withUTF8Bytes { token in
            var found = false
            forEachListElement(name) { element in
                if !found && ASCII.equalIgnoringCase(element, token) { found = true }
            }
            return found
        }
    }

    /// Calls `body` with the bytes of each list element of every `name` field, in order, as `listElements`
    /// returns them, without building Strings: the hit path reads lists on every request.
    public func forEachListElement(_ name: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        for field in fields where field.name.equalsIgnoringASCIICase(name) {
            field.value.withUTF8Bytes { Self.forEachListElement(in: $0, body) }
        }
    }

    /// Splits one field value at the commas outside quoted strings (a backslash inside quotes escapes the next
    /// byte), trims each element and skips empty ones (RFC 9110 §5.6.1). Works on bytes: the delimiters are ASCII,
    /// and no UTF-8 sequence contains an ASCII byte.
    public static func forEachListElement(
        in bytes: UnsafeBufferPointer<UInt8>,
        _ body: (UnsafeBufferPointer<UInt8>) -> Void
    ) {
        var start = 0
        var inQuotes = false
        var escaped = false
        for index in 0..<bytes.count {
            let byte = bytes[index]
            if escaped {
                escaped = false
            } else if byte == 0x5C && inQuotes {  // backslash
                escaped = true
            } else if byte == 0x22 {  // double quote
                inQuotes.toggle()
            } else if byte == 0x2C && !inQuotes {  // comma
                emit(UnsafeBufferPointer(rebasing: bytes[start..<index]), body)
                start = index + 1
            }
        }
        emit(UnsafeBufferPointer(rebasing: bytes[start...]), body)
    }

    @inline(__always)
    private static func emit(_ element: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        let trimmed = ASCII.trimmingWhitespace(element)
        if !trimmed.isEmpty { body(trimmed) }
    }

    /// The list elements of one field value (see `forEachListElement(in:_:)`).
    static func splitList(_ value: String) -> [String] {
        var elements: [String] = []
        value.withUTF8Bytes { bytes in
            forEachListElement(in: bytes) { elements.append(String(decoding: $0, as: UTF8.self)) }
        }
        return elements
    }
}
