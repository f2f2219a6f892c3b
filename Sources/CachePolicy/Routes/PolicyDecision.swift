/// What to do with a request, given its route and the stored response that might answer it: the route's policy
/// applied, with RFC 9111's `CachePlan` inside it for `standard`. The edge executes it.
public enum PolicyDecision: Equatable, Sendable {
    /// Serve the stored response without asking the origin (`X-Cache: HIT`). `ttl` is the freshness left, for
    /// `Cache-Status: ttl=` (RFC 9211 §2.4); negative for a `cache-only` answer past its lifetime.
    case serve(age: Int64, ttl: Int64)
    /// As `serve`, but the client's own conditional request matches it: answer 304 (RFC 9111 §4.3.2).
    case serveNotModified(age: Int64, ttl: Int64)
    /// Serve the stored response stale (`X-Cache: STALE`, `ttl` negative): `.whileRevalidate` for a
    /// `stale-while-revalidate` route or the origin's own window (RFC 5861 §3), `.maxStale` for the client's
    /// `max-stale` (RFC 9111 §5.2.1.2), `.error` while the origin is in its error back-off. With `refresh`, also
    /// fetch it again in the background, once per key however many requests arrive.
    case serveStale(age: Int64, ttl: Int64, because: StaleReason, refresh: Bool)
    /// Ask the origin.
    case fetch(FetchPlan)
    /// Neither read nor write the cache (`X-Cache: BYPASS`, `Cache-Status: fwd=bypass`): `network-only`.
    case bypass
    /// A `cache-only` route has nothing to answer with: 504, naming the key that was looked up.
    case cacheOnlyMiss(key: String)
    /// The client sent `only-if-cached` and answering needs the origin: 504, naming the key (RFC 9111 §5.2.1.7).
    case onlyIfCachedMiss(key: String)
}
