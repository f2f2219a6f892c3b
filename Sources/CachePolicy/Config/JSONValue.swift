import FoundationEssentials

/// A JSON document as plain values, so config validation can walk it, report paths, and catch
/// unknown keys (which `Decodable` would silently ignore).
public enum JSONValue: Sendable, Equatable, Decodable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }

    /// The name a person would use for this kind of value in an error message.
    var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// Follows a JSON Pointer (RFC 6901), e.g. `/data/items/0`.
    public func value(at pointer: String) -> JSONValue? {
        if pointer.isEmpty { return self }
        guard pointer.hasPrefix("/") else { return nil }
        var current = self
        for rawToken in pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            let token = String(rawToken.replacing("~1", with: "/").replacing("~0", with: "~"))
            switch current {
            case .object(let members):
                guard let next = members[token] else { return nil }
                current = next
            case .array(let elements):
                guard let index = Int(token), elements.indices.contains(index) else { return nil }
                current = elements[index]
            default:
                return nil
            }
        }
        return current
    }
}
