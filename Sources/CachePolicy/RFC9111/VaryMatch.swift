import HTTPWire

/// Selecting a stored response by the request fields its `Vary` names (RFC 9111 §4.1).
public enum VaryMatch {
    /// The members of the response's `Vary` field lines, as sent (RFC 9110 §12.5.5).
    public static func fieldNames(in response: ResponseHead) -> [String] {
        response.headers.listElements("Vary")
    }

    /// Whether `request` matches the stored request on every field `vary` names (RFC 9111 §4.1): values are
    /// compared after normalising (field lines combined with ", ", each trimmed); a field absent from one
    /// request matches only when absent from the other; a `*` member never matches; field names compare
    /// case-insensitively.
    public static func matches(vary: [String], storedRequestHeaders: HTTPHeaders, request: RequestHead) -> Bool {
        for name in vary {
            if name == "*" { return false }
            if normalizedValue(of: name, in: storedRequestHeaders) != normalizedValue(of: name, in: request.headers) {
                return false
            }
        }
        return true
    }

    /// A deterministic key for the variant `request` selects, so variants of one URL are stored apart:
    /// equal keys exactly when `matches` holds. Names are lower-cased, deduplicated and sorted; each entry is
    /// `name=value`, or the bare name when the field is absent; entries are joined by a line feed, which no field
    /// value can hold (RFC 9110 §5.5). Empty when the response has no `Vary`.
    public static func secondaryKey(vary: [String], request: RequestHead) -> String {
        let names = Set(vary.map(\.asciiLowercased)).sorted()
        return names.map { name in
            normalizedValue(of: name, in: request.headers).map { "\(name)=\($0)" } ?? name
        }.joined(separator: "\n")
    }

    /// The field's lines trimmed and combined with ", " (RFC 9111 §4.1, RFC 9110 §5.3), or nil when absent.
    static func normalizedValue(of name: String, in headers: HTTPHeaders) -> String? {
        let values = headers.values(name)
        guard !values.isEmpty else { return nil }
        return values.map { $0.trimmingHTTPWhitespace() }.joined(separator: ", ")
    }
}
