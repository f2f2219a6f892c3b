/// The six types of JSON values (RFC 8259 §3), as `storeIf.json` names them.
public enum JSONType: String, Sendable, Equatable, CaseIterable {
    case object, array, string, number, boolean, null

    public func describes(_ value: JSONValue) -> Bool {
        switch (self, value) {
        case (.object, .object), (.array, .array), (.string, .string), (.number, .number), (.boolean, .bool),
            (.null, .null):
            true
        default:
            false
        }
    }
}
