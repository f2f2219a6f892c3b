/// What the cache did with a request, as Larder's `X-Cache` field says it; the raw value is the field text.
public enum CacheStatus: String, Sendable, Equatable, CaseIterable {
    /// Served fresh from the cache (RFC 9111 §4.2).
    case hit = "HIT"
    /// Fetched from the origin, stored or not (nothing was stored, or it did not apply).
    case miss = "MISS"
    /// A stored response was stale and a new one was fetched (RFC 9111 §4.3.3).
    case expired = "EXPIRED"
    /// A stored response was validated with the origin, which answered 304 (RFC 9111 §4.3.3, §4.3.4).
    case revalidated = "REVALIDATED"
    /// Served stale, on an origin error or during a background refresh (RFC 5861; RFC 9111 §4.2.4).
    case stale = "STALE"
    /// The cache was not used for this request, by request or policy (RFC 9211 §2.2 `bypass`).
    case bypass = "BYPASS"
    /// An unsafe request was queued for replay while the origin is unreachable.
    case queued = "QUEUED"
}
