import HTTPWire

extension PolicyDecision {
    /// Decides what to do with `request` on `route`, given `entry`, the stored response the store found under
    /// `key` (any variant; its `Vary` is checked here, RFC 9111 §4.1), at `now`, while the origin's recent failures
    /// are `backoff`.
    ///
    /// - `network-only`: `bypass`.
    /// - `cache-only`: a matching entry is served whatever its age; else `cacheOnlyMiss`. The client cannot refresh.
    /// - `standard`: `RFC9111.plan`; the route adds `staleIfError` when neither side said `stale-if-error`.
    /// - `cache-first`: served while its age is under `ttl`; else fetched (conditionally when it has a validator).
    /// - `network-first`: always fetched; it stands in for a failed origin within `staleIfError` of its age.
    /// - `stale-while-revalidate`: served under `ttl`; served stale and refreshed in the background until
    ///   `ttl` + `maxStale`; else fetched.
    ///
    /// The non-standard policies ignore the origin's freshness fields (including `must-revalidate`), and of the
    /// client's directives they heed only `no-cache` (and `Pragma: no-cache`, a refresh unless the route sets
    /// `clientRefresh: ignore`) and `only-if-cached`. Their stale stand-in on error lasts `staleIfError` past the
    /// route's lifetime (`ttl`, 0 for `network-first`, `ttl` + `maxStale` for `stale-while-revalidate`). While the
    /// back-off window is open and the stand-in is allowed, it is served at once instead of fetching.
    ///
    /// Methods a route does not cache (`RouteOptions.caches(method:match:)`) are fetched without a stand-in.
    public init(
        request: RequestHead,
        route: Route,
        entry: StoredEntryView?,
        key: String,
        now: Int64,
        backoff: ErrorBackoff = ErrorBackoff(),
        heuristicFreshnessCap: Int64 = StoreOptions.defaultHeuristicFreshnessCap
    ) {
        let options = route.options
        switch options.policy {
        case .networkOnly:
            self = .bypass
        case .cacheOnly:
            self = PolicyDecision.cacheOnly(
                request: request, route: route, entry: entry, key: key, now: now, cap: heuristicFreshnessCap)
        case .standard:
            self = PolicyDecision.standard(
                request: request, options: options, entry: entry, key: key, now: now, backoff: backoff,
                cap: heuristicFreshnessCap)
        case .cacheFirst, .networkFirst, .staleWhileRevalidate:
            self = PolicyDecision.routeLifetime(
                request: request, route: route, entry: entry, key: key, now: now, backoff: backoff)
        }
    }

    /// `cache-only`: whatever is stored, however old.
    private static func cacheOnly(
        request: RequestHead, route: Route, entry: StoredEntryView?, key: String, now: Int64, cap: Int64
    ) -> PolicyDecision {
        guard route.options.caches(method: request.method, match: route.match), let entry,
            VaryMatch.matches(
                vary: entry.varyNames, storedRequestHeaders: entry.requestHeaders, request: request)
        else {
            return .cacheOnlyMiss(key: key)
        }
        let age = entry.currentAge(now: now)
        let lifetime = route.options.ttlSeconds ?? entry.facts(cap: cap).lifetime.seconds
        if RFC9111.clientConditionMatches(request, stored: entry) {
            return .serveNotModified(age: age, ttl: lifetime - age)
        }
        return .serve(age: age, ttl: lifetime - age)
    }

    /// `standard`: RFC 9111 decides; the route adds its client-refresh rule, `staleIfError` and the back-off.
    private static func standard(
        request: RequestHead, options: RouteOptions, entry: StoredEntryView?, key: String, now: Int64,
        backoff: ErrorBackoff, cap: Int64
    ) -> PolicyDecision {
        var planned = request
        if options.clientRefresh == .ignore { planned.headers = withoutRefresh(request.headers) }
        let plan = RFC9111.plan(request: planned, entry: entry, now: now, heuristicFreshnessCap: cap)

        func lifetime(of entry: StoredEntryView) -> Int64 {
            entry.facts(cap: cap).lifetime.seconds
        }
        // A stand-in for a failed origin (RFC 5861 §4): the request's stale-if-error, else the response's, else the
        // route's; never for a response that forbids stale use (RFC 9111 §4.2.4).
        func fetch(_ conditions: HTTPHeaders, _ reason: ForwardReason) -> PolicyDecision {
            guard let entry, reason == .stale || reason == .request else {
                return .fetch(FetchPlan(conditionalHeaders: conditions, reason: reason))
            }
            let given = entry.facts(cap: cap).directives
            let asked = CacheControl(requestHeaders: request.headers)
            var until: Int64?
            if !given.forbidsStale, let limit = asked.staleIfError ?? given.staleIfError ?? options.staleIfErrorSeconds
            {
                let age = entry.currentAge(now: now)
                until = standInDeadline(now: now, age: age, lifetime: lifetime(of: entry), window: limit)
                if until != nil && backoff.isOpen(at: now, window: options.errorBackoffSeconds) {
                    return .serveStale(age: age, ttl: lifetime(of: entry) - age, because: .error, refresh: false)
                }
            }
            return .fetch(FetchPlan(conditionalHeaders: conditions, reason: reason, staleIfErrorUntil: until))
        }

        switch plan {
        case .serve(let age, let ttl):
            return .serve(age: age, ttl: ttl)
        case .serveNotModified(let age, let ttl):
            return .serveNotModified(age: age, ttl: ttl)
        case .serveStale(let age, let reason):
            // `plan` serves stale only with an entry.
            let ttl = lifetime(of: entry!) - age
            let refresh = reason == .whileRevalidate && !backoff.isOpen(at: now, window: options.errorBackoffSeconds)
            return .serveStale(age: age, ttl: ttl, because: reason, refresh: refresh)
        case .revalidate(let conditions, _, let reason):
            return fetch(conditions, reason)
        case .forward(let reason):
            return fetch([:], reason)
        case .onlyIfCachedMiss:
            return .onlyIfCachedMiss(key: key)
        }
    }

    /// `cache-first`, `network-first` and `stale-while-revalidate`: the route's lifetime, not the origin's, decides.
    private static func routeLifetime(
        request: RequestHead, route: Route, entry: StoredEntryView?, key: String, now: Int64, backoff: ErrorBackoff
    ) -> PolicyDecision {
        let options = route.options
        guard options.caches(method: request.method, match: route.match) else {
            return .fetch(FetchPlan(reason: .method))
        }
        let asked = CacheControl(requestHeaders: request.headers)
        let lifetime = options.policy == .networkFirst ? 0 : options.ttlSeconds ?? 0

        // RFC 9111 §5.2.1.7: only-if-cached turns every trip to the origin into a 504.
        func toOrigin(_ plan: FetchPlan) -> PolicyDecision {
            asked.onlyIfCached ? .onlyIfCachedMiss(key: key) : .fetch(plan)
        }
        guard let entry else { return toOrigin(FetchPlan(reason: .uriMiss, lifetime: lifetime)) }
        guard
            VaryMatch.matches(
                vary: entry.varyNames, storedRequestHeaders: entry.requestHeaders, request: request)
        else {
            return toOrigin(FetchPlan(reason: .varyMiss, lifetime: lifetime))
        }
        // RFC 9111 §4.3.2: preconditions that only apply to the origin are not the cache's to evaluate.
        if request.headers.contains("If-Match") || request.headers.contains("If-Unmodified-Since") {
            return toOrigin(FetchPlan(reason: .request, lifetime: lifetime))
        }

        let age = entry.currentAge(now: now)
        let ttl = lifetime - age
        let maxStale = options.policy == .staleWhileRevalidate ? options.maxStaleSeconds ?? 0 : 0
        // How stale past the lifetime a stand-in may be: a stale-while-revalidate entry would be served anyway.
        let window = options.staleIfErrorSeconds.map { maxStale + $0 } ?? (maxStale > 0 ? maxStale : nil)
        let standInUntil = window.flatMap { standInDeadline(now: now, age: age, lifetime: lifetime, window: $0) }
        let backingOff = standInUntil != nil && backoff.isOpen(at: now, window: options.errorBackoffSeconds)

        func fetch(_ reason: ForwardReason) -> PolicyDecision {
            if backingOff { return .serveStale(age: age, ttl: ttl, because: .error, refresh: false) }
            return toOrigin(
                FetchPlan(
                    conditionalHeaders: RFC9111.conditionalHeaders(for: entry.response), reason: reason,
                    staleIfErrorUntil: standInUntil, lifetime: lifetime))
        }

        // RFC 9111 §5.2.1.4, §5.4: the client wants the origin to answer, unless the route says otherwise.
        if asked.noCache && options.clientRefresh == .honor { return fetch(.request) }
        if options.policy == .networkFirst { return fetch(.stale) }
        if ttl > 0 {
            if RFC9111.clientConditionMatches(request, stored: entry) { return .serveNotModified(age: age, ttl: ttl) }
            return .serve(age: age, ttl: ttl)
        }
        if options.policy == .staleWhileRevalidate && -ttl <= maxStale {
            return .serveStale(age: age, ttl: ttl, because: .whileRevalidate, refresh: !backingOff)
        }
        return fetch(.stale)
    }

    /// The last second a response of this `age` may stand in for a failed origin, `window` seconds past `lifetime`;
    /// nil when that is already past.
    private static func standInDeadline(now: Int64, age: Int64, lifetime: Int64, window: Int64) -> Int64? {
        let (sum, overflow) = (lifetime - age).addingReportingOverflow(window)
        if overflow { return Int64.max }
        guard sum >= 0 else { return nil }
        let (until, late) = now.addingReportingOverflow(sum)
        return late ? Int64.max : until
    }

    /// The request's fields without the client's refresh: `Pragma` and `Cache-Control: no-cache`
    /// (RFC 9111 §5.2.1.4, §5.4), for a route with `clientRefresh: ignore`.
    static func withoutRefresh(_ headers: HTTPHeaders) -> HTTPHeaders {
        var result = HTTPHeaders()
        for field in headers {
            if field.name.equalsIgnoringASCIICase("Pragma") { continue }
            guard field.name.equalsIgnoringASCIICase("Cache-Control") else {
                result.add(field.name, field.value)
                continue
            }
            let kept = HTTPHeaders([field]).listElements("Cache-Control").filter { element in
                let name = element.prefix { $0 != "=" }
                return !String(name).trimmingHTTPWhitespace().equalsIgnoringASCIICase("no-cache")
            }
            if !kept.isEmpty { result.add(field.name, kept.joined(separator: ", ")) }
        }
        return result
    }
}
