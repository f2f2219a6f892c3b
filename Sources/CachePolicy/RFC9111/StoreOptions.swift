/// What Larder's configuration adds to the RFC 9111 §3 storage rules.
public struct StoreOptions: Sendable, Equatable {
    /// The default cap on a heuristic freshness lifetime: one day (RFC 9111 §4.2.2 leaves the bound to the cache).
    public static let defaultHeuristicFreshnessCap: Int64 = 86400

    /// Store responses to requests with `Authorization` even without `public`/`s-maxage`/`must-revalidate`
    /// (a route's opt-in, overriding RFC 9111 §3.5).
    public var storeAuthorized: Bool
    /// Store responses carrying `Set-Cookie` (a route's opt-in).
    public var storeSetCookie: Bool
    /// The largest body stored, in bytes, judged here from `Content-Length`; nil for no limit.
    public var maxObjectSize: Int?
    /// The cap on heuristic freshness (RFC 9111 §4.2.2), for `RFC9111.freshnessLifetime` and `RFC9111.plan`.
    public var heuristicFreshnessCap: Int64

    public init(
        storeAuthorized: Bool = false,
        storeSetCookie: Bool = false,
        maxObjectSize: Int? = nil,
        heuristicFreshnessCap: Int64 = StoreOptions.defaultHeuristicFreshnessCap
    ) {
        self.storeAuthorized = storeAuthorized
        self.storeSetCookie = storeSetCookie
        self.maxObjectSize = maxObjectSize
        self.heuristicFreshnessCap = heuristicFreshnessCap
    }
}
