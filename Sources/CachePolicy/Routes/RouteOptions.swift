/// How a route caches. A route's options start as a copy of the config's `defaults`; every key a route writes
/// replaces that one value. Times are seconds unless the name says otherwise.
public struct RouteOptions: Sendable, Equatable {
    public var policy: RoutePolicy = .standard
    /// `cache-first`, `stale-while-revalidate` (required there) and `cache-only` (reporting only): how long a
    /// stored response is served without asking the origin, measured by its age (RFC 9111 §4.2.3).
    public var ttlSeconds: Int64?
    /// How stale (past the route's lifetime, or the origin's for `standard`) a stored response may be to answer
    /// when the origin fails. For `standard` it applies only when neither the request nor the response carries
    /// `stale-if-error` (RFC 5861 §4), and never to a response that forbids stale use (RFC 9111 §4.2.4).
    public var staleIfErrorSeconds: Int64?
    /// `stale-while-revalidate` (required there): how long past `ttl` a stored response is still served at once
    /// while it is refreshed in the background.
    public var maxStaleSeconds: Int64?
    /// The longest wait for the origin's response head, after which the fetch counts as failed; nil: the global
    /// `timeouts.read`.
    public var timeoutMilliseconds: Int64?
    /// After an origin fails, for this long stale answers that `staleIfError` allows are served without asking
    /// it again; 0 turns the back-off off.
    public var errorBackoffSeconds: Int64 = 10
    public var clientRefresh: ClientRefresh = .honor
    /// Store responses to requests with `Authorization`, keyed by a digest of the credentials (overrides
    /// RFC 9111 §3.5).
    public var storeAuthorized = false
    /// Store responses that set cookies (which Larder otherwise never stores).
    public var storeSetCookie = false
    public var key = KeyOptions()
    public var storeIf = StoreConditions()
    /// Queue unsafe requests (POST, PUT, PATCH, DELETE) for replay while the origin is unreachable.
    public var queue = false

    public init() {}

    /// The methods whose responses the route stores and serves: GET (and HEAD, answered from it), plus with
    /// `key.body` the body-carrying methods the route's match lists, since their key then holds their body.
    public func caches(method: String, match: RouteMatch) -> Bool {
        if method == "GET" || method == "HEAD" { return true }
        guard key.body, policy != .standard, KeyOptions.bodyMethods.contains(method) else { return false }
        return match.methods.contains(method)
    }
}
