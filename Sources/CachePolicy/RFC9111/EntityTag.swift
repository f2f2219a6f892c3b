/// An entity tag, `[W/]"opaque"` (RFC 9110 §8.8.3).
public struct EntityTag: Sendable, Equatable, Hashable {
    public var isWeak: Bool
    /// The characters between the quotes.
    public var opaqueTag: String

    public init(isWeak: Bool, opaqueTag: String) {
        self.isWeak = isWeak
        self.opaqueTag = opaqueTag
    }

    /// Parses one entity-tag; nil unless it is `W/"..."` or `"..."` with only etagc inside (RFC 9110 §8.8.3).
    public init?(parsing text: String) {
        var rest = Substring(text.trimmingHTTPWhitespace())
        let weak = rest.hasPrefix("W/")
        if weak { rest = rest.dropFirst(2) }
        guard rest.count >= 2, rest.first == "\"", rest.last == "\"" else { return nil }
        let inner = rest.dropFirst().dropLast()
        // etagc = %x21 / %x23-7E / obs-text: no space, no DQUOTE, no control characters.
        guard inner.utf8.allSatisfy({ $0 == 0x21 || ($0 >= 0x23 && $0 != 0x7F) }) else { return nil }
        self.init(isWeak: weak, opaqueTag: String(inner))
    }

    /// Weak comparison: the opaque tags are equal, whether or not either is weak (RFC 9110 §8.8.3.2).
    public func weaklyMatches(_ other: EntityTag) -> Bool {
        opaqueTag == other.opaqueTag
    }
}
