/// One header field as it appeared on the wire: the name keeps its case, the value is trimmed.
public struct HTTPField: Sendable, Equatable, Hashable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// Header fields in wire order, repeats kept (several `Set-Cookie` must reach the client as they came).
/// Look-ups are case-insensitive (RFC 9110 §5.1).
public struct HTTPHeaders: Sendable, Equatable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    public private(set) var fields: [HTTPField]

    public init(_ fields: [HTTPField] = []) {
        self.fields = fields
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.fields = elements.map { HTTPField($0.0, $0.1) }
    }

    public func makeIterator() -> IndexingIterator<[HTTPField]> { fields.makeIterator() }

    public var count: Int { fields.count }
    public var isEmpty: Bool { fields.isEmpty }

    /// The first value of `name`, or nil.
    public subscript(name: String) -> String? {
        fields.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }

    /// Every value of `name`, in order.
    public func values(_ name: String) -> [String] {
        fields.filter { $0.name.equalsIgnoringASCIICase(name) }.map(\.value)
    }

    public func contains(_ name: String) -> Bool {
        fields.contains { $0.name.equalsIgnoringASCIICase(name) }
    }

    /// The comma-separated list elements of every `name` field, trimmed, empty ones dropped
    /// (RFC 9110 §5.6.1). Quoted strings are not split.
    public func listElements(_ name: String) -> [String] {
        values(name).flatMap(HTTPHeaders.splitList)
    }

    /// True when a list field (e.g. `Connection`, `Vary`) holds `token`, compared case-insensitively.
    public func listContains(_ name: String, token: String) -> Bool {
        listElements(name).contains { $0.equalsIgnoringASCIICase(token) }
    }

    public mutating func add(_ name: String, _ value: String) {
        fields.append(HTTPField(name, value))
    }

    /// Replaces every `name` field with one holding `value`, at the position of the first.
    public mutating func set(_ name: String, _ value: String) {
        if let first = fields.firstIndex(where: { $0.name.equalsIgnoringASCIICase(name) }) {
            fields[first].value = value
            var index = fields.index(after: first)
            while index < fields.endIndex {
                if fields[index].name.equalsIgnoringASCIICase(name) {
                    fields.remove(at: index)
                } else {
                    index += 1
                }
            }
        } else {
            add(name, value)
        }
    }

    public mutating func remove(_ name: String) {
        fields.removeAll { $0.name.equalsIgnoringASCIICase(name) }
    }

    public mutating func removeAll(where predicate: (HTTPField) -> Bool) {
        fields.removeAll(where: predicate)
    }

    static func splitList(_ value: String) -> [String] {
        var elements: [String] = []
        var current = ""
        var inQuotes = false
        var escaped = false
        for character in value {
            if escaped {
                current.append(character)
                escaped = false
                continue
            }
            switch character {
            case "\\" where inQuotes:
                current.append(character)
                escaped = true
            case "\"":
                inQuotes.toggle()
                current.append(character)
            case "," where !inQuotes:
                let trimmed = current.trimmingHTTPWhitespace()
                if !trimmed.isEmpty { elements.append(trimmed) }
                current = ""
            default:
                current.append(character)
            }
        }
        let trimmed = current.trimmingHTTPWhitespace()
        if !trimmed.isEmpty { elements.append(trimmed) }
        return elements
    }
}

extension String {
    /// ASCII case-insensitive comparison, the only kind HTTP field names and tokens need.
    public func equalsIgnoringASCIICase(_ other: String) -> Bool {
        let lhs = self.utf8
        let rhs = other.utf8
        guard lhs.count == rhs.count else { return false }
        for (a, b) in zip(lhs, rhs) where a != b {
            if a.asciiLowercased != b.asciiLowercased { return false }
        }
        return true
    }

    /// Drops leading and trailing spaces and tabs (OWS, RFC 9110 §5.6.3).
    public func trimmingHTTPWhitespace() -> String {
        let bytes = Array(utf8)
        var start = 0
        var end = bytes.count
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        if start == 0 && end == bytes.count { return self }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    public var asciiLowercased: String {
        if !utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) { return self }
        return String(decoding: utf8.map(\.asciiLowercased), as: UTF8.self)
    }
}

extension UInt8 {
    @inline(__always)
    var asciiLowercased: UInt8 { (self >= 0x41 && self <= 0x5A) ? self | 0x20 : self }
}
