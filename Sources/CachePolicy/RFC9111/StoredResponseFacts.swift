import HTTPWire

/// What deciding about a stored response reads from its head, parsed once: its `Cache-Control` directives, the
/// fields its `Vary` names, its freshness lifetime (RFC 9111 §4.2.1) and its corrected initial age (§4.2.3). None of
/// it changes while the response sits in the cache; only the resident time grows, so the current age is computed
/// from these at any `now`.
///
/// Whoever keeps facts for reuse must give them only to a `StoredEntryView` of the very response and times they were
/// read from, with the same heuristic cap (`matches`).
public struct StoredResponseFacts: Sendable, Equatable {
    public let directives: CacheControl
    public let varyNames: [String]
    public let lifetime: FreshnessLifetime
    public let heuristicCap: Int64
    public let times: StoredTimes
    let correctedInitialAge: Int64

    public init(response: ResponseHead, times: StoredTimes, heuristicCap: Int64) {
        directives = CacheControl(parsing: response.headers)
        varyNames = VaryMatch.fieldNames(in: response)
        lifetime = RFC9111.freshnessLifetime(
            of: response, directives: directives, responseTime: times.responseTime, heuristicCap: heuristicCap)
        self.heuristicCap = heuristicCap
        self.times = times
        correctedInitialAge = AgeCalculation(response: response, times: times, now: times.responseTime)
            .correctedInitialAge
    }

    /// `current_age` of RFC 9111 §4.2.3 at `now`: the corrected initial age plus the resident time, floored at 0.
    public func currentAge(now: Int64) -> Int64 {
        max(0, correctedInitialAge + (now - times.responseTime))
    }
}

extension StoredEntryView {
    /// The facts of this response with heuristic cap `cap`: the ones attached to the view when they fit, else parsed
    /// now.
    public func facts(cap: Int64) -> StoredResponseFacts {
        if let facts, facts.heuristicCap == cap, facts.times == times { return facts }
        return StoredResponseFacts(response: response, times: times, heuristicCap: cap)
    }

    /// The request fields the response's `Vary` names (RFC 9111 §4.1), whatever the heuristic cap.
    public var varyNames: [String] {
        facts?.varyNames ?? VaryMatch.fieldNames(in: response)
    }

    /// `current_age` of RFC 9111 §4.2.3 at `now`.
    public func currentAge(now: Int64) -> Int64 {
        if let facts, facts.times == times { return facts.currentAge(now: now) }
        return RFC9111.currentAge(of: response, times: times, now: now)
    }
}
