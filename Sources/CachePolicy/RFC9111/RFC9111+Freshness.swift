import HTTPWire

extension RFC9111 {
    /// The response's `Date` (first field line), or nil when absent or not a valid HTTP-date (RFC 9110 §6.6.1).
    public static func dateValue(of response: ResponseHead) -> Int64? {
        response.headers["Date"].flatMap(HTTPDate.parse)
    }

    /// The freshness lifetime for a shared cache (RFC 9111 §4.2.1), first that applies:
    /// `s-maxage`; `max-age`; `Expires` minus `Date` (or minus `responseTime` without `Date`);
    /// else the heuristic of §4.2.2: 10 % of `Date` minus `Last-Modified`, at most `heuristicCap`, only for a
    /// heuristically cacheable status or a `public` response. An invalid `s-maxage`/`max-age` and an invalid
    /// `Expires` (such as "0") mean already expired (RFC 9111 §4.2.1, §5.3).
    public static func freshnessLifetime(
        of response: ResponseHead,
        responseTime: Int64,
        heuristicCap: Int64 = StoreOptions.defaultHeuristicFreshnessCap
    ) -> FreshnessLifetime {
        freshnessLifetime(
            of: response, directives: CacheControl(parsing: response.headers), responseTime: responseTime,
            heuristicCap: heuristicCap)
    }

    /// `freshnessLifetime(of:responseTime:heuristicCap:)` with the response's `Cache-Control` already parsed,
    /// for callers that need the directives too and should not parse them twice.
    public static func freshnessLifetime(
        of response: ResponseHead,
        directives given: CacheControl,
        responseTime: Int64,
        heuristicCap: Int64
    ) -> FreshnessLifetime {
        // RFC 9111 §5.2.2.10: s-maxage overrides max-age and Expires in a shared cache.
        if given.hasSMaxAge { return FreshnessLifetime(seconds: given.sMaxAge ?? 0, source: .sMaxAge) }
        // RFC 9111 §5.2.2.1, §5.3: max-age overrides Expires.
        if given.hasMaxAge { return FreshnessLifetime(seconds: given.maxAge ?? 0, source: .maxAge) }

        let date = dateValue(of: response) ?? responseTime
        if let expiresText = response.headers["Expires"] {
            // RFC 9111 §5.3: an invalid date, especially "0", is a time in the past.
            guard let expires = HTTPDate.parse(expiresText) else {
                return FreshnessLifetime(seconds: 0, source: .expires)
            }
            return FreshnessLifetime(seconds: max(0, expires - date), source: .expires)
        }

        // RFC 9111 §4.2.2: heuristics only without explicit freshness, for heuristically cacheable statuses
        // or responses marked public.
        guard heuristicallyCacheableStatuses.contains(response.status) || given.isPublic else {
            return FreshnessLifetime(seconds: 0, source: .none)
        }
        guard let lastModified = response.headers["Last-Modified"].flatMap(HTTPDate.parse), date > lastModified else {
            return FreshnessLifetime(seconds: 0, source: .heuristic)
        }
        return FreshnessLifetime(seconds: min((date - lastModified) / 10, max(0, heuristicCap)), source: .heuristic)
    }

    /// `current_age` of RFC 9111 §4.2.3.
    public static func currentAge(of response: ResponseHead, times: StoredTimes, now: Int64) -> Int64 {
        AgeCalculation(response: response, times: times, now: now).currentAge
    }

    /// A response is fresh when its freshness lifetime exceeds its current age (RFC 9111 §4.2).
    public static func isFresh(
        _ response: ResponseHead,
        times: StoredTimes,
        now: Int64,
        heuristicCap: Int64 = StoreOptions.defaultHeuristicFreshnessCap
    ) -> Bool {
        let lifetime = freshnessLifetime(of: response, responseTime: times.responseTime, heuristicCap: heuristicCap)
        return lifetime.seconds > currentAge(of: response, times: times, now: now)
    }

    /// The `Age` field value for a response served from the cache: the current age, clamped to
    /// 0...2147483648 (RFC 9111 §5.1, §1.2.2).
    public static func ageHeaderValue(_ age: Int64) -> String {
        String(min(max(age, 0), DeltaSeconds.maximum))
    }
}
