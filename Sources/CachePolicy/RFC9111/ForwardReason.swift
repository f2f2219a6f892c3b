/// Why a request went to the origin; raw values are the `fwd` tokens of `Cache-Status` (RFC 9211 §2.2).
public enum ForwardReason: String, Sendable, Equatable, CaseIterable {
    /// Configured not to use the cache for this request (RFC 9211 §2.2).
    case bypass = "bypass"
    /// The request method is not one the cache serves (RFC 9211 §2.2).
    case method = "method"
    /// Nothing stored for the URL (RFC 9211 §2.2).
    case uriMiss = "uri-miss"
    /// Stored responses for the URL, none whose `Vary` matches (RFC 9211 §2.2, RFC 9111 §4.1).
    case varyMiss = "vary-miss"
    /// A miss, kind not known (RFC 9211 §2.2).
    case miss = "miss"
    /// A fresh response existed, but the request's directives did not allow its use (RFC 9211 §2.2).
    case request = "request"
    /// The stored response was stale or needs validation (RFC 9211 §2.2).
    case stale = "stale"
    /// Only part of the response was stored (RFC 9211 §2.2).
    case partial = "partial"
}
