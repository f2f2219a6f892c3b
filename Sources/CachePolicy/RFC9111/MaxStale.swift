/// The argument of the `max-stale` request directive (RFC 9111 §5.2.1.2).
public enum MaxStale: Sendable, Equatable {
    /// `max-stale` without a value: the client accepts a stale response of any age (RFC 9111 §5.2.1.2).
    case any
    /// `max-stale=N`: the client accepts a response stale by no more than N seconds (RFC 9111 §5.2.1.2).
    case seconds(Int64)

    /// Whether a response that has exceeded its freshness lifetime by `staleness` seconds is acceptable
    /// (RFC 9111 §5.2.1.2).
    public func allows(staleness: Int64) -> Bool {
        switch self {
        case .any: true
        case .seconds(let limit): staleness <= limit
        }
    }
}
