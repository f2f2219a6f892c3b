import HTTPWire

/// Metadata of one stored variant (no body).
public struct StoredEntry: Sendable, Equatable {
    /// Primary cache key, e.g. `GET http://example.com/a`; opaque to the store.
    public var key: String
    /// Secondary key derived from `Vary` (RFC 9111 §4.1); "" when the response has none.
    public var variant: String
    /// Normalised absolute URL, for purge by URL and `larder ls`.
    public var url: String
    /// Route name, for stats and purge by route.
    public var route: String
    /// The response head as stored (no hop-by-hop fields).
    public var head: ResponseHead
    /// The request's values of the fields the response's `Vary` names.
    public var varyRequestHeaders: HTTPHeaders
    /// Seconds since 1970.
    public var requestTime: Int64
    /// Seconds since 1970.
    public var responseTime: Int64
    public var bodySize: Int
    /// Which stored body this metadata describes; 0 until a writer commits. `body(of:)` serves only this body,
    /// so an entry read before a newer response replaced it can never be paired with the newer body.
    public internal(set) var bodyID: UInt64

    public init(
        key: String,
        variant: String,
        url: String,
        route: String,
        head: ResponseHead,
        varyRequestHeaders: HTTPHeaders = [:],
        requestTime: Int64,
        responseTime: Int64,
        bodySize: Int = 0
    ) {
        self.key = key
        self.variant = variant
        self.url = url
        self.route = route
        self.head = head
        self.varyRequestHeaders = varyRequestHeaders
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.bodySize = bodySize
        self.bodyID = 0
    }
}
