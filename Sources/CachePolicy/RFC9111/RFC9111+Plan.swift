import HTTPWire

extension RFC9111 {
    /// What to do with `request` given `entry`, the stored response the store found for its URL, if any
    /// (RFC 9111 §4), in this order:
    /// 1. only GET and HEAD are answered from the cache (a HEAD from a stored GET);
    /// 2. no entry → `uri-miss`; `Vary` does not match → `vary-miss` (§4.1);
    /// 3. `If-Match`/`If-Unmodified-Since` are for the origin to evaluate (§4.3.2) → forward;
    /// 4. request `no-cache` or `Pragma: no-cache` (§5.2.1.4, §5.4) and response `no-cache` (§5.2.2.4) → validate;
    /// 5. fresh (§4.2) and within the request's `max-age` (§5.2.1.1) and `min-fresh` (§5.2.1.3) → serve,
    ///    or 304 when the client's conditional request matches (§4.3.2); fresh but refused by them → validate;
    /// 6. stale: the client's `max-stale` (§5.2.1.2), else the origin's `stale-while-revalidate` (RFC 5861 §3),
    ///    unless `must-revalidate`, `proxy-revalidate` or `s-maxage` forbid it (§4.2.4, §5.2.2.2, §5.2.2.8,
    ///    §5.2.2.10); else validate.
    ///
    /// "Validate" is a conditional request when the entry has a validator (§4.3.1), else a plain forward; with
    /// `only-if-cached` every path to the origin becomes `onlyIfCachedMiss` (§5.2.1.7). A `Range` request is
    /// answered with the whole stored response, which RFC 9110 §14.2 allows.
    public static func plan(
        request: RequestHead,
        entry: StoredEntryView?,
        now: Int64,
        heuristicFreshnessCap: Int64 = StoreOptions.defaultHeuristicFreshnessCap
    ) -> CachePlan {
        guard request.method == "GET" || request.method == "HEAD" else { return .forward(reason: .method) }
        let asked = CacheControl(requestHeaders: request.headers)

        // RFC 9111 §5.2.1.7: only-if-cached turns every trip to the origin into a 504.
        func toOrigin(_ reason: ForwardReason) -> CachePlan {
            asked.onlyIfCached ? .onlyIfCachedMiss : .forward(reason: reason)
        }
        guard let entry else { return toOrigin(.uriMiss) }
        let facts = entry.facts(cap: heuristicFreshnessCap)
        guard VaryMatch.matches(vary: facts.varyNames, storedRequestHeaders: entry.requestHeaders, request: request)
        else {
            return toOrigin(.varyMiss)
        }
        // RFC 9111 §4.3.2: preconditions that only apply to the origin are not the cache's to evaluate.
        if request.headers.contains("If-Match") || request.headers.contains("If-Unmodified-Since") {
            return toOrigin(.request)
        }

        let given = facts.directives
        let age = facts.currentAge(now: now)
        let ttl = facts.lifetime.seconds - age

        // RFC 9111 §4.3.1: validate when the entry has a validator, else fetch anew.
        func validate(_ reason: ForwardReason) -> CachePlan {
            if asked.onlyIfCached { return .onlyIfCachedMiss }
            let conditions = conditionalHeaders(for: entry.response)
            if conditions.isEmpty { return .forward(reason: reason) }
            return .revalidate(conditionalHeaders: conditions, age: age, because: reason)
        }

        // RFC 9111 §5.2.1.4, §5.4: the client wants the origin to confirm.
        if asked.noCache { return validate(.request) }
        // RFC 9111 §5.2.2.4: never reused without successful validation, fresh or not.
        if given.noCache { return validate(.stale) }

        // RFC 9111 §4.2: fresh when the lifetime exceeds the current age.
        if ttl > 0 {
            // RFC 9111 §5.2.1.1: the client accepts an age up to max-age.
            if let maxAge = asked.maxAge, age > maxAge { return validate(.request) }
            // RFC 9111 §5.2.1.3: the client wants at least min-fresh seconds of freshness left.
            if let minFresh = asked.minFresh, ttl < minFresh { return validate(.request) }
            if clientConditionMatches(request, stored: entry) { return .serveNotModified(age: age, ttl: ttl) }
            return .serve(age: age, ttl: ttl)
        }

        let staleness = -ttl
        if !given.forbidsStale {
            // RFC 9111 §5.2.1.2 with §5.2.1.1 and §5.2.1.3: max-stale admits a stale response unless max-age or
            // min-fresh in the same request refuse it.
            if let maxStale = asked.maxStale, maxStale.allows(staleness: staleness),
                asked.maxAge.map({ age <= $0 }) ?? true, asked.minFresh == nil
            {
                return .serveStale(age: age, because: .maxStale)
            }
            // RFC 5861 §3: the origin's window, for a client that did not ask for a younger response
            // (a request max-age without max-stale refuses stale responses, §5.2.1.1; min-fresh too, §5.2.1.3).
            if let window = given.staleWhileRevalidate, staleness <= window, asked.maxAge == nil, asked.minFresh == nil
            {
                return .serveStale(age: age, because: .whileRevalidate)
            }
        }
        return validate(.stale)
    }
}
