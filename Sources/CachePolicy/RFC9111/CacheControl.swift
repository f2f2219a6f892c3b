import HTTPWire

/// The directives of the `Cache-Control` field of a request or a response (RFC 9111 §5.2), plus the
/// `stale-while-revalidate` and `stale-if-error` extensions (RFC 5861) and `immutable` (RFC 8246).
///
/// Duplicates (RFC 9111 §4.2.1): for a directive with a value, the first occurrence with a valid value wins;
/// a directive without a value is set when any occurrence is present, which is also the most restrictive reading
/// for `no-store`, `no-cache`, `private` and `must-revalidate`. Conflicting directives are all kept, and the
/// decisions honour the most restrictive one (RFC 9111 §4.2.1).
public struct CacheControl: Sendable, Equatable {
    /// `max-age`: in a request, the oldest response the client accepts (RFC 9111 §5.2.1.1); in a response,
    /// its freshness lifetime (RFC 9111 §5.2.2.1).
    public var maxAge: Int64?
    /// `s-maxage`: the freshness lifetime for shared caches, which also implies `proxy-revalidate`
    /// (RFC 9111 §5.2.2.10).
    public var sMaxAge: Int64?
    /// `no-store` in a request (RFC 9111 §5.2.1.5) or a response (RFC 9111 §5.2.2.5).
    public var noStore = false
    /// `no-cache` in a request (RFC 9111 §5.2.1.4) or a response (RFC 9111 §5.2.2.4), qualified or not.
    public var noCache = false
    /// The field names of a qualified `no-cache="..."` response directive (RFC 9111 §5.2.2.4); empty when unqualified.
    public var noCacheFields: [String] = []
    /// The `private` response directive, qualified or not (RFC 9111 §5.2.2.7).
    public var isPrivate = false
    /// The field names of a qualified `private="..."` response directive (RFC 9111 §5.2.2.7).
    public var privateFields: [String] = []
    /// The `public` response directive (RFC 9111 §5.2.2.9).
    public var isPublic = false
    /// `must-revalidate`: once stale, never reused without validation (RFC 9111 §5.2.2.2).
    public var mustRevalidate = false
    /// `proxy-revalidate`: `must-revalidate` for shared caches only (RFC 9111 §5.2.2.8).
    public var proxyRevalidate = false
    /// `must-understand`: store only when the status code is understood (RFC 9111 §5.2.2.3).
    public var mustUnderstand = false
    /// `no-transform` in a request (RFC 9111 §5.2.1.6) or a response (RFC 9111 §5.2.2.6).
    public var noTransform = false
    /// `immutable`: the response will not change while fresh (RFC 8246 §2).
    public var immutable = false
    /// `stale-while-revalidate=N`: may be served up to N seconds stale while it is revalidated (RFC 5861 §3).
    public var staleWhileRevalidate: Int64?
    /// `stale-if-error=N`: may be served up to N seconds stale when the origin fails (RFC 5861 §4); a request
    /// may carry it too.
    public var staleIfError: Int64?
    /// `max-stale` request directive (RFC 9111 §5.2.1.2).
    public var maxStale: MaxStale?
    /// `min-fresh` request directive (RFC 9111 §5.2.1.3).
    public var minFresh: Int64?
    /// `only-if-cached` request directive (RFC 9111 §5.2.1.7).
    public var onlyIfCached = false
    /// Lower-cased names of directives whose argument was missing or not valid `delta-seconds`
    /// (RFC 9111 §1.2.2); their value was ignored. Freshness treats an invalid `max-age` or `s-maxage`
    /// in a response as stale (RFC 9111 §4.2.1).
    public var malformed: [String] = []

    /// No directives at all.
    public init() {}

    /// Whether `s-maxage` was present, even with an invalid value: presence alone matters for
    /// §3.5 and for the implied `proxy-revalidate` (RFC 9111 §5.2.2.10).
    public var hasSMaxAge: Bool { sMaxAge != nil || malformed.contains("s-maxage") }

    /// Whether `max-age` was present, even with an invalid value (RFC 9111 §3: explicit freshness).
    public var hasMaxAge: Bool { maxAge != nil || malformed.contains("max-age") }

    /// Whether a shared cache may not serve this response stale: `no-cache`, `must-revalidate`,
    /// `proxy-revalidate` or `s-maxage` (RFC 9111 §4.2.4, §5.2.2.2, §5.2.2.4, §5.2.2.8, §5.2.2.10).
    public var forbidsStale: Bool { noCache || mustRevalidate || proxyRevalidate || hasSMaxAge }
}
