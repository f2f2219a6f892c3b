/// Whether a response may be stored by Larder, a shared cache, and if not, why (RFC 9111 §3).
public enum StoreDecision: Equatable, Sendable {
    /// Every condition of RFC 9111 §3 holds (and Larder's own product rules).
    case store
    /// The response must not be stored; the reason feeds `Cache-Status` `detail=` (RFC 9211 §2.8).
    case skip(because: SkipReason)
}
