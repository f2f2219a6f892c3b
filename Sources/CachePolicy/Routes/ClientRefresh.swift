/// What a route does with a client's `Cache-Control: no-cache` or `Pragma: no-cache` (RFC 9111 §5.2.1.4, §5.4).
public enum ClientRefresh: String, Sendable, Equatable, CaseIterable {
    /// Go to the origin, as the client asked (every policy but `cache-only`).
    case honor = "honor"
    /// Answer as if the client had not asked: for clients that send `no-cache` on every request.
    case ignore = "ignore"
}
