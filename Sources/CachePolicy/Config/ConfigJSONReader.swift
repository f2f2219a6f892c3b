/// Reads a config file's JSON (RFC 8259) into a `JSONValue`, saying where the text stops being JSON (line, column and
/// what was expected there) and which object names repeat, which a JSON decoder resolves silently by keeping one of
/// them (RFC 8259 §4: names SHOULD be unique). A leading UTF-8 byte order mark is skipped.
struct ConfigJSONReader {
    private let bytes: [UInt8]
    private var offset = 0
    /// A problem for every name that appears more than once in one object, at its JSON path.
    private(set) var repeatedNames: [ConfigProblem] = []

    /// Deeper nesting is refused rather than risking the stack; no config comes near it.
    static let maximumDepth = 256

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { offset = 3 }
    }

    /// The whole document, or the first place it is not JSON, as a problem at `$`.
    mutating func read() throws(ConfigProblem) -> JSONValue {
        skipWhitespace()
        let value = try readValue(path: "$", depth: 0)
        skipWhitespace()
        if offset < bytes.count { throw failure("unexpected \(found) after the end of the document") }
        return value
    }

    private mutating func readValue(path: String, depth: Int) throws(ConfigProblem) -> JSONValue {
        guard depth < Self.maximumDepth else { throw failure("nested more than \(Self.maximumDepth) levels deep") }
        guard let byte = peek else { throw failure("the file ends where a value was expected") }
        switch byte {
        case UInt8(ascii: "{"): return try readObject(path: path, depth: depth)
        case UInt8(ascii: "["): return try readArray(path: path, depth: depth)
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try readNumber())
        case UInt8(ascii: "t"): return try readLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try readLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try readLiteral("null", .null)
        default:
            throw failure("expected a value (an object, array, string, number, true, false or null), found \(found)")
        }
    }

    private mutating func readObject(path: String, depth: Int) throws(ConfigProblem) -> JSONValue {
        offset += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if peek == UInt8(ascii: "}") {
            offset += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard peek == UInt8(ascii: "\"") else {
                if peek == UInt8(ascii: "}") { throw failure("a \",\" before \"}\": JSON allows no trailing comma") }
                throw failure("expected a name in double quotes, found \(found)")
            }
            let name = try readString()
            skipWhitespace()
            guard peek == UInt8(ascii: ":") else {
                throw failure("expected \":\" after the name \"\(name)\", found \(found)")
            }
            offset += 1
            skipWhitespace()
            let child = "\(path).\(name)"
            let value = try readValue(path: child, depth: depth + 1)
            if members.updateValue(value, forKey: name) != nil {
                repeatedNames.append(
                    ConfigProblem(path: child, reason: "appears more than once in the same object; keep one"))
            }
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): offset += 1
            case UInt8(ascii: "}"):
                offset += 1
                return .object(members)
            case nil: throw failure("the file ends inside an object: a \"}\" is missing")
            default:
                throw failure("expected \",\" or \"}\" after the value of \"\(name)\", found \(found)\(commaHint)")
            }
        }
    }

    private mutating func readArray(path: String, depth: Int) throws(ConfigProblem) -> JSONValue {
        offset += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek == UInt8(ascii: "]") {
            offset += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            if peek == UInt8(ascii: "]") { throw failure("a \",\" before \"]\": JSON allows no trailing comma") }
            elements.append(try readValue(path: "\(path)[\(elements.count)]", depth: depth + 1))
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): offset += 1
            case UInt8(ascii: "]"):
                offset += 1
                return .array(elements)
            case nil: throw failure("the file ends inside an array: a \"]\" is missing")
            default: throw failure("expected \",\" or \"]\" after an element, found \(found)\(commaHint)")
            }
        }
    }

    /// A string, its escapes decoded (RFC 8259 §7); the cursor is on its opening quote.
    private mutating func readString() throws(ConfigProblem) -> String {
        offset += 1
        var scalars = String.UnicodeScalarView()
        var run = offset
        func flush(_ reader: ConfigJSONReader, upTo end: Int) throws(ConfigProblem) {
            guard let text = String(validating: reader.bytes[run..<end], as: UTF8.self) else {
                throw reader.failure("a string that is not valid UTF-8")
            }
            scalars.append(contentsOf: text.unicodeScalars)
        }
        while true {
            guard let byte = peek else { throw failure("the file ends inside a string: a closing \" is missing") }
            switch byte {
            case UInt8(ascii: "\""):
                try flush(self, upTo: offset)
                offset += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                try flush(self, upTo: offset)
                offset += 1
                scalars.append(try readEscape())
                run = offset
            case 0..<0x20:
                throw failure("a control character inside a string; write it as an escape such as \\n or \\t")
            default:
                offset += 1
            }
        }
    }

    /// The character an escape stands for; the cursor is just past its backslash.
    private mutating func readEscape() throws(ConfigProblem) -> Unicode.Scalar {
        guard let byte = peek else { throw failure("the file ends inside a string: a closing \" is missing") }
        offset += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let unit = try readHexUnit()
            if UTF16.isTrailSurrogate(unit) { throw failure("a \\u escape for half of a surrogate pair") }
            guard UTF16.isLeadSurrogate(unit) else {
                // Not a surrogate: always a scalar.
                return Unicode.Scalar(unit)!
            }
            guard peek == UInt8(ascii: "\\"), offset + 1 < bytes.count, bytes[offset + 1] == UInt8(ascii: "u") else {
                throw failure("a \\u escape for half of a surrogate pair")
            }
            offset += 2
            let trail = try readHexUnit()
            guard UTF16.isTrailSurrogate(trail) else { throw failure("a \\u escape for half of a surrogate pair") }
            let value = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(trail) - 0xDC00)
            // A lead and a trail surrogate always make a scalar.
            return Unicode.Scalar(value)!
        default:
            offset -= 1
            throw failure(
                "unknown escape \\\(String(decoding: [byte], as: UTF8.self)) in a string (a \"\\\" is written \"\\\\\")"
            )
        }
    }

    private mutating func readHexUnit() throws(ConfigProblem) -> UInt16 {
        let isHexDigit = { (byte: UInt8) in
            (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte | 0x20)
        }
        guard offset + 4 <= bytes.count, bytes[offset..<offset + 4].allSatisfy(isHexDigit),
            let unit = UInt16(String(decoding: bytes[offset..<offset + 4], as: UTF8.self), radix: 16)
        else { throw failure("expected four hexadecimal digits after \\u") }
        offset += 4
        return unit
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?` (RFC 8259 §6).
    private mutating func readNumber() throws(ConfigProblem) -> Double {
        let start = offset
        func digits(_ reader: inout ConfigJSONReader) -> Int {
            let first = reader.offset
            while let byte = reader.peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { reader.offset += 1 }
            return reader.offset - first
        }
        if peek == UInt8(ascii: "-") { offset += 1 }
        let leadingZero = peek == UInt8(ascii: "0")
        let whole = digits(&self)
        var valid = whole > 0 && !(leadingZero && whole > 1)
        if valid, peek == UInt8(ascii: ".") {
            offset += 1
            valid = digits(&self) > 0
        }
        if valid, peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            offset += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { offset += 1 }
            valid = digits(&self) > 0
        }
        guard valid, let number = Double(String(decoding: bytes[start..<offset], as: UTF8.self)) else {
            offset = start
            throw failure(
                "not a JSON number (no leading zeros, + signs or bare dots; durations are strings such as \"30s\")")
        }
        return number
    }

    private mutating func readLiteral(_ word: String, _ value: JSONValue) throws(ConfigProblem) -> JSONValue {
        guard bytes[offset...].starts(with: word.utf8) else {
            throw failure("expected a value (an object, array, string, number, true, false or null), found \(found)")
        }
        offset += word.utf8.count
        return value
    }

    private var peek: UInt8? { offset < bytes.count ? bytes[offset] : nil }

    private mutating func skipWhitespace() {
        while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { offset += 1 }
    }

    /// What is at the cursor, for a message: a word, a quoted character, or the end of the file.
    private var found: String {
        guard let byte = peek else { return "the end of the file" }
        if byte == UInt8(ascii: "/") { return "\"/\" (JSON has no comments)" }
        if byte == UInt8(ascii: "'") { return "\"'\" (strings and names take double quotes)" }
        if byte == UInt8(ascii: "\"") { return "a string" }
        let isWordByte = { (byte: UInt8) in
            let lower = byte | 0x20
            return (lower >= 0x61 && lower <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x5F || byte == 0x2D
        }
        if isWordByte(byte) {
            let word = bytes[offset...].prefix(while: isWordByte).prefix(24)
            return "\"\(String(decoding: word, as: UTF8.self))\""
        }
        if byte < 0x20 || byte >= 0x7F { return "a byte 0x\(String(byte, radix: 16, uppercase: true))" }
        return "\"\(String(decoding: [byte], as: UTF8.self))\""
    }

    /// After a value, where a "," or a closing bracket belongs: a hint when the next value already starts.
    private var commaHint: String {
        guard let byte = peek else { return "" }
        let startsValue = "\"{[-0123456789tfn".utf8.contains(byte)
        return startsValue ? " (is a \",\" missing?)" : ""
    }

    /// A problem at the cursor: `$` and the line and column (both from 1, columns in characters).
    private func failure(_ reason: String) -> ConfigProblem {
        let end = min(offset, bytes.count)
        let lineStart = bytes[..<end].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
        let line = bytes[..<lineStart].count { $0 == 0x0A } + 1
        // Characters, not bytes: a UTF-8 continuation byte does not start one.
        let column = bytes[lineStart..<end].count { $0 & 0xC0 != 0x80 } + 1
        return ConfigProblem(path: "$", reason: "not valid JSON at line \(line), column \(column): \(reason)")
    }
}
