/// What joins a route's cache key besides the method and URL (see `CacheKey.derive`).
public struct KeyOptions: Sendable, Equatable {
    public var query = QueryKeyOptions()
    /// Request header fields whose values join the key, lowercased, in config order. `Authorization` and
    /// `Cookie` join as digests, never in clear.
    public var headers: [String] = []
    /// A digest of the request body joins the key, so side-effect-free POSTs (search, GraphQL, RPC) can be
    /// cached on routes that list POST.
    public var body = false
    /// Prefixes every key; changing it makes every entry stored under the old one unreachable.
    public var version: String?

    public init() {}

    /// The methods `body` is about: those whose requests carry content.
    public static let bodyMethods = ["POST", "PUT", "PATCH"]

    /// Header fields joining the key only as a digest of their value.
    public static let credentialHeaders = ["authorization", "cookie"]

    /// Whether anything besides the method and the URL as sent joins the key.
    public var isDefault: Bool { query.isDefault && headers.isEmpty && !body && version == nil }
}
