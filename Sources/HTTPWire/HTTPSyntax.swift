/// Byte classes of the HTTP grammar (RFC 9110 §5.6, RFC 9112 §2), tested without building Strings.
enum HTTPSyntax {
    // Computed rather than `static let`, which outside whole-module optimisation costs a lazy-initialisation
    // check on every read in the scanning loops.
    static var cr: UInt8 { 0x0D }
    static var lf: UInt8 { 0x0A }
    static var space: UInt8 { 0x20 }
    static var tab: UInt8 { 0x09 }
    static var colon: UInt8 { 0x3A }

    /// `tchar` (RFC 9110 §5.6.2): the characters a method or field name may contain.
    @inline(__always)
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true  // DIGIT, ALPHA
        case 0x21, 0x23...0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E: true  // !#$%&'*+-.^_`|~
        default: false
        }
    }

    /// `OWS` (RFC 9110 §5.6.3).
    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == space || byte == tab
    }

    /// Whether `bytes` is a non-empty token.
    static func isToken(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if bytes.isEmpty { return false }
        for byte in bytes where !isTokenByte(byte) { return false }
        return true
    }

    /// Whether `text` is a non-empty token.
    static func isToken(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { isToken($0) }
    }

    /// The value of an ASCII hex digit, or nil.
    @inline(__always)
    static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case 0x30...0x39: Int(byte &- 0x30)
        case 0x41...0x46: Int(byte &- 0x41 &+ 10)
        case 0x61...0x66: Int(byte &- 0x61 &+ 10)
        default: nil
        }
    }

    /// The value of an ASCII decimal digit, or nil.
    @inline(__always)
    static func digitValue(_ byte: UInt8) -> Int? {
        (0x30...0x39).contains(byte) ? Int(byte &- 0x30) : nil
    }

    /// Appends `value` in decimal, as `String(value)` writes it, without building the String.
    static func appendDecimal(_ value: Int, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(0x2D) }  // "-"
        var magnitude = value.magnitude
        var divisor: UInt = 1
        while divisor <= magnitude / 10 { divisor *= 10 }
        repeat {
            bytes.append(0x30 &+ UInt8(truncatingIfNeeded: magnitude / divisor))
            magnitude %= divisor
            divisor /= 10
        } while divisor > 0
    }
}
