/// Why a stale response may be served (RFC 9111 §4.2.4: only when explicitly permitted).
public enum StaleReason: Sendable, Equatable {
    /// Within the origin's `stale-while-revalidate` window; refresh in the background (RFC 5861 §3).
    case whileRevalidate
    /// The client's `max-stale` accepts it (RFC 9111 §5.2.1.2).
    case maxStale
    /// The origin failed and `stale-if-error` allows it (RFC 5861 §4); chosen by the edge via
    /// `RFC9111.staleIfErrorAllowed`, never by `plan`.
    case error
}
