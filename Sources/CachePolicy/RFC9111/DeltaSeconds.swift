/// The `delta-seconds` rule: a non-negative integer number of seconds (RFC 9111 §1.2.2).
public enum DeltaSeconds {
    /// The value a cache uses for a delta-seconds it cannot represent, and the largest it keeps (RFC 9111 §1.2.2).
    public static let maximum: Int64 = 2_147_483_648

    /// Parses `1*DIGIT`; anything else (sign, space, fraction, empty) is invalid and gives nil.
    /// Values above 2^31, including ones that overflow, become 2^31 (RFC 9111 §1.2.2).
    public static func parse(_ text: Substring) -> Int64? {
        var text = text
        return text.withUTF8 { parse($0) }
    }

    /// Parses `1*DIGIT` from bytes, as `parse(_:)` does from text.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard !bytes.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in bytes {
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            if value <= maximum { value = value * 10 + Int64(byte - 0x30) }
        }
        return min(value, maximum)
    }

    /// Parses a whole string as `delta-seconds` (RFC 9111 §1.2.2).
    public static func parse(_ text: String) -> Int64? {
        text.withUTF8Bytes { parse($0) }
    }
}
