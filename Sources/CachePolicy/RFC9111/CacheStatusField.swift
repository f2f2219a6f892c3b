/// One member of the `Cache-Status` field (RFC 9211 §2): the cache's name with its parameters, serialised as a
/// Structured Fields list member (RFC 8941 §4.1) with "; " between parameters, as RFC 9211's examples write it:
/// `larder; fwd=uri-miss; fwd-status=200; stored; ttl=60`.
public struct CacheStatusField: Sendable, Equatable, CustomStringConvertible {
    /// The cache's identifier, a token or a string (RFC 9211 §2).
    public var cache: String
    /// `hit`: served from the cache without contacting the origin (RFC 9211 §2.1).
    public var hit: Bool
    /// `fwd`: why the request went forward (RFC 9211 §2.2).
    public var fwd: ForwardReason?
    /// `fwd-status`: the status the next hop answered (RFC 9211 §2.3).
    public var fwdStatus: Int?
    /// `stored`: the response forwarded was stored (RFC 9211 §2.5).
    public var stored: Bool
    /// `collapsed`: the request was coalesced with another (RFC 9211 §2.6).
    public var collapsed: Bool
    /// `ttl`: seconds of freshness left, negative when stale (RFC 9211 §2.4).
    public var ttl: Int64?
    /// `key`: the cache key, as a string (RFC 9211 §2.7).
    public var key: String?
    /// `detail`: more about what happened, such as why it was not stored (RFC 9211 §2.8).
    public var detail: String?

    public init(
        cache: String = "larder",
        hit: Bool = false,
        fwd: ForwardReason? = nil,
        fwdStatus: Int? = nil,
        stored: Bool = false,
        collapsed: Bool = false,
        ttl: Int64? = nil,
        key: String? = nil,
        detail: String? = nil
    ) {
        self.cache = cache
        self.hit = hit
        self.fwd = fwd
        self.fwdStatus = fwdStatus
        self.stored = stored
        self.collapsed = collapsed
        self.ttl = ttl
        self.key = key
        self.detail = detail
    }

    /// The largest magnitude of an sf-integer (RFC 8941 §3.3.1).
    static let integerLimit: Int64 = 999_999_999_999_999

    /// The member's text: identifier, then `hit`, `fwd`, `fwd-status`, `stored`, `collapsed`, `ttl`, `key`,
    /// `detail`; boolean parameters appear only when true, as bare keys (RFC 8941 §3.1.2, RFC 9211 §2).
    public var description: String {
        // Appended piece by piece into one buffer: an interpolated piece is a string of its own, and one over 15
        // bytes (`; fwd-status=200`) was an allocation on every response.
        var text = CacheStatusField.item(cache)
        text.reserveCapacity(64)
        if hit { text += "; hit" }
        if let fwd {
            text += "; fwd="
            text += fwd.rawValue
        }
        if let fwdStatus {
            text += "; fwd-status="
            text += String(fwdStatus)
        }
        if stored { text += "; stored" }
        if collapsed { text += "; collapsed" }
        if let ttl {
            text += "; ttl="
            text += String(min(max(ttl, -CacheStatusField.integerLimit), CacheStatusField.integerLimit))
        }
        if let key {
            text += "; key="
            text += CacheStatusField.string(key)
        }
        if let detail {
            text += "; detail="
            text += CacheStatusField.item(detail)
        }
        return text
    }

    /// A token when the text is a valid sf-token, else an sf-string (RFC 8941 §3.3.4, §3.3.3; RFC 9211 §2.8).
    static func item(_ text: String) -> String {
        isToken(text) ? text : string(text)
    }

    /// `sf-token = ( ALPHA / "*" ) *( tchar / ":" / "/" )` (RFC 8941 §3.3.4).
    static func isToken(_ text: String) -> Bool {
        guard let first = text.utf8.first, first == 0x2A || ((first | 0x20) >= 0x61 && (first | 0x20) <= 0x7A) else {
            return false
        }
        return text.utf8.allSatisfy { byte in
            let lower = byte | 0x20
            return (lower >= 0x61 && lower <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || isTokenPunctuation(byte)
        }
    }

    /// The punctuation an sf-token may hold after its first character: ``!#$%&'*+-.^_`|~:/``. A switch, not a
    /// Set, because every response's `Cache-Status` is checked with it.
    private static func isTokenPunctuation(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x21, 0x23...0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x2F, 0x3A, 0x5E, 0x5F, 0x60, 0x7C, 0x7E: true
        default: false
        }
    }

    /// An sf-string: DQUOTE, printable ASCII with `\` and `"` escaped, DQUOTE (RFC 8941 §3.3.3); characters it
    /// cannot hold become "?".
    static func string(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x22, 0x5C:
                result += "\\"
                result.unicodeScalars.append(scalar)
            case 0x20...0x7E:
                result.unicodeScalars.append(scalar)
            default:
                result += "?"
            }
        }
        return result + "\""
    }
}
