extension String {
    /// ASCII case-insensitive comparison, the only kind HTTP field names and tokens need.
    public func equalsIgnoringASCIICase(_ other: String) -> Bool {
        let lhs = utf8
        let rhs = other.utf8
        guard lhs.count == rhs.count else { return false }
        // Native strings (every string on Linux) expose their UTF-8 contiguously; comparing through pointers
        // is a tight loop, where stepping two UTF8View iterators costs calls per byte.
        let fast = lhs.withContiguousStorageIfAvailable { left in
            rhs.withContiguousStorageIfAvailable { right in ASCII.equalIgnoringCase(left, right) }
        }
        if let fast, let equal = fast { return equal }
        return lhs.elementsEqual(rhs) { $0.asciiLowercased == $1.asciiLowercased }
    }

    /// Whether the string starts with `prefix`, ignoring ASCII case; no lowercased copy is made.
    public func hasPrefixIgnoringASCIICase(_ prefix: String) -> Bool {
        withUTF8Bytes { bytes in
            prefix.withUTF8Bytes { prefix in
                bytes.count >= prefix.count
                    && ASCII.equalIgnoringCase(UnsafeBufferPointer(rebasing: bytes[0..<prefix.count]), prefix)
            }
        }
    }

    /// Drops leading and trailing spaces and tabs (OWS, RFC 9110 §5.6.3).
    public func trimmingHTTPWhitespace() -> String {
        withUTF8Bytes { bytes in
            let trimmed = ASCII.trimmingWhitespace(bytes)
            return trimmed.count == bytes.count ? self : String(decoding: trimmed, as: UTF8.self)
        }
    }

    public var asciiLowercased: String {
        if !utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) { return self }
        return String(decoding: utf8.map(\.asciiLowercased), as: UTF8.self)
    }

    /// Runs `body` on the string's UTF-8 bytes without copying them when the string is native.
    @inline(__always)
    public func withUTF8Bytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        if let result = try utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = self
        return try copy.withUTF8(body)
    }
}

extension UInt8 {
    @inline(__always)
    var asciiLowercased: UInt8 { (self >= 0x41 && self <= 0x5A) ? self | 0x20 : self }
}

/// Byte-level helpers for the ASCII parts of HTTP, shared by the parsers that work on UTF-8 buffers.
public enum ASCII {
    /// Whether two byte runs are equal ignoring ASCII case.
    @inline(__always)
    public static func equalIgnoringCase(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for index in 0..<lhs.count {
            let a = lhs[index]
            let b = rhs[index]
            if a != b && a.asciiLowercased != b.asciiLowercased { return false }
        }
        return true
    }

    /// A space or a tab (OWS, RFC 9110 §5.6.3).
    @inline(__always)
    public static func isWhitespace(_ byte: UInt8) -> Bool { HTTPSyntax.isWhitespace(byte) }

    /// The value of a decimal digit, or nil.
    @inline(__always)
    public static func digitValue(_ byte: UInt8) -> Int? { HTTPSyntax.digitValue(byte) }

    /// `bytes` without leading and trailing spaces and tabs (OWS, RFC 9110 §5.6.3).
    @inline(__always)
    public static func trimmingWhitespace(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var start = 0
        var end = bytes.count
        while start < end, HTTPSyntax.isWhitespace(bytes[start]) { start += 1 }
        while end > start, HTTPSyntax.isWhitespace(bytes[end - 1]) { end -= 1 }
        return UnsafeBufferPointer(rebasing: bytes[start..<end])
    }
}
