import HTTPWire

/// How to ask the origin for a request a route's policy sends there.
public struct FetchPlan: Sendable, Equatable {
    /// Conditional fields to send instead of the client's (RFC 9111 §4.3.1); empty for a fetch without a validator.
    /// A 304 answer then refreshes the stored response (RFC 9111 §4.3.4).
    public var conditionalHeaders: HTTPHeaders
    /// Why the request goes forward, for `Cache-Status: fwd=` (RFC 9211 §2.2).
    public var reason: ForwardReason
    /// Until when (seconds since 1970) the stored response may answer instead, `X-Cache: STALE`, when the origin
    /// cannot be reached, times out or answers 5xx (`ErrorBackoff.isFailure`); nil when it may not.
    public var staleIfErrorUntil: Int64?
    /// The freshness lifetime the route gives a stored response, so that `Cache-Status: ttl=` is this minus its age,
    /// for a response stored from this fetch and for the stale stand-in alike; nil when the origin's headers decide
    /// (`standard`, RFC 9111 §4.2.1).
    public var lifetime: Int64?

    public init(
        conditionalHeaders: HTTPHeaders = [:], reason: ForwardReason, staleIfErrorUntil: Int64? = nil,
        lifetime: Int64? = nil
    ) {
        self.conditionalHeaders = conditionalHeaders
        self.reason = reason
        self.staleIfErrorUntil = staleIfErrorUntil
        self.lifetime = lifetime
    }

    /// Whether the stored response may stand in for a failed origin at `now`.
    public func allowsStale(at now: Int64) -> Bool {
        staleIfErrorUntil.map { now <= $0 } ?? false
    }

    /// What to answer when the origin failed at `now` (unreachable, timed out, or `ErrorBackoff.isFailure`): `entry`
    /// served stale, with its age and ttl then, or nil when it may not stand in (RFC 5861 §4).
    public func standIn(
        _ entry: StoredEntryView,
        now: Int64,
        heuristicFreshnessCap: Int64 = StoreOptions.defaultHeuristicFreshnessCap
    ) -> PolicyDecision? {
        guard allowsStale(at: now) else { return nil }
        let age = entry.currentAge(now: now)
        let lifetime = lifetime ?? entry.facts(cap: heuristicFreshnessCap).lifetime.seconds
        return .serveStale(age: age, ttl: lifetime - age, because: .error, refresh: false)
    }
}
