import HTTPWire

/// What to do with a GET or HEAD given the stored response that might answer it (RFC 9111 §4).
public enum CachePlan: Equatable, Sendable {
    /// Fresh and acceptable: serve it; `ttl` is lifetime minus age, for `Cache-Status: ttl=` (RFC 9111 §4.2).
    case serve(age: Int64, ttl: Int64)
    /// Fresh, and the client's own conditional request matches it: answer 304 (RFC 9111 §4.3.2).
    case serveNotModified(age: Int64, ttl: Int64)
    /// Validate with the origin first, sending these conditional fields instead of the client's (RFC 9111 §4.3.1);
    /// `because` is `.stale` (stale, or response `no-cache`) or `.request` (the client's directives).
    case revalidate(conditionalHeaders: HTTPHeaders, age: Int64, because: ForwardReason)
    /// Go to the origin without a validator (RFC 9111 §4).
    case forward(reason: ForwardReason)
    /// Serve the stale response now, as explicitly permitted (RFC 9111 §4.2.4); for `.whileRevalidate`, also
    /// refresh it in the background (RFC 5861 §3).
    case serveStale(age: Int64, because: StaleReason)
    /// `only-if-cached` and nothing acceptable is stored: answer 504 (RFC 9111 §5.2.1.7).
    case onlyIfCachedMiss
}
