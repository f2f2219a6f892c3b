/// One `storeIf.json` check: the value at a JSON Pointer (RFC 6901) in the response body.
public struct JSONCheck: Sendable, Equatable {
    /// What the value must be.
    public enum Expectation: Sendable, Equatable {
        /// Equal to this value (`{"/code": 0}`, or `{"/code": {"equals": {...}}}` for objects). Numbers compare
        /// by value, so 0 equals 0.0.
        case equals(JSONValue)
        /// Of this JSON type (`{"/data": {"type": "object"}}`).
        case type(JSONType)
        /// Present or absent (`{"/error": {"present": false}}`).
        case present(Bool)
    }

    /// A pointer such as `/data/items/0`; "" is the whole document.
    public var pointer: String
    public var expectation: Expectation

    public init(pointer: String, expectation: Expectation) {
        self.pointer = pointer
        self.expectation = expectation
    }

    public func holds(in document: JSONValue) -> Bool {
        let value = document.value(at: pointer)
        switch expectation {
        case .equals(let expected): return value == expected
        case .type(let type): return value.map(type.describes) ?? false
        case .present(let present): return (value != nil) == present
        }
    }
}
