/// Where a freshness lifetime came from (RFC 9111 §4.2.1, §4.2.2).
public enum FreshnessSource: Sendable, Equatable {
    /// `s-maxage`, first for a shared cache (RFC 9111 §5.2.2.10).
    case sMaxAge
    /// `max-age` (RFC 9111 §5.2.2.1).
    case maxAge
    /// `Expires` minus `Date` (RFC 9111 §5.3).
    case expires
    /// 10 % of the time since `Last-Modified`, capped (RFC 9111 §4.2.2).
    case heuristic
    /// No explicit lifetime and no heuristic allowed: a lifetime of zero (RFC 9111 §4.2.2).
    case none

    /// Whether the lifetime was given by the origin rather than guessed (RFC 9111 §4.2.1).
    public var isExplicit: Bool {
        switch self {
        case .sMaxAge, .maxAge, .expires: true
        case .heuristic, .none: false
        }
    }
}
