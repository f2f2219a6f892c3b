import HTTPWire

extension RFC9111 {
    /// Whether `entry` may be served when the origin fails (a 500, 502, 503 or 504, or no answer) while it is
    /// being fetched or validated (RFC 5861 §4): the request's `stale-if-error`, else the response's, bounds how
    /// stale it may be; without either, no. Never when the response forbids stale use: `must-revalidate`,
    /// `proxy-revalidate`, `s-maxage` or `no-cache` (RFC 9111 §4.2.4).
    public static func staleIfErrorAllowed(
        entry: StoredEntryView,
        now: Int64,
        requestCacheControl: CacheControl,
        heuristicFreshnessCap: Int64 = StoreOptions.defaultHeuristicFreshnessCap
    ) -> Bool {
        let facts = entry.facts(cap: heuristicFreshnessCap)
        let given = facts.directives
        guard !given.forbidsStale, let limit = requestCacheControl.staleIfError ?? given.staleIfError else {
            return false
        }
        let staleness = facts.currentAge(now: now) - facts.lifetime.seconds
        return staleness <= limit
    }
}
