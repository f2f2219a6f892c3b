/// How a route uses the cache; the raw value is the config's spelling.
public enum RoutePolicy: String, Sendable, Equatable, CaseIterable {
    /// RFC 9111: the origin's headers decide what is stored and for how long.
    case standard = "standard"
    /// A stored response younger than `ttl` is served whatever the origin's headers said; otherwise fetch and store.
    case cacheFirst = "cache-first"
    /// Always ask the origin; when it fails, times out or answers 5xx, serve the stored response within
    /// `staleIfError`.
    case networkFirst = "network-first"
    /// Within `ttl` serve; within `ttl` + `maxStale` serve at once and refresh in the background; else fetch.
    case staleWhileRevalidate = "stale-while-revalidate"
    /// Never read or write the cache.
    case networkOnly = "network-only"
    /// Answer only from the cache, whatever the age; a miss is a 504 naming the key.
    case cacheOnly = "cache-only"

    /// Whether the policy ever stores a response it fetched.
    public var stores: Bool { self != .networkOnly && self != .cacheOnly }

    /// Whether the origin's freshness headers decide (RFC 9111), rather than the route's `ttl`.
    public var followsOriginFreshness: Bool { self == .standard }

    /// Whether a request may wait for another's fetch of the same key and be answered from what it stores (request
    /// coalescing). Not on `network-first`, where every request asks the origin itself: waiting would only delay it.
    public var sharesFetches: Bool { self != .networkFirst }
}
