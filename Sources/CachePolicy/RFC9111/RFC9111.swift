import HTTPWire

/// The decisions RFC 9111 (HTTP Caching) asks of a shared cache, as pure functions of their inputs.
///
/// Larder is a shared cache (RFC 9111 §1), so every rule written "if the cache is shared" applies.
/// Nothing here reads a clock: `now`, `requestTime` and `responseTime` are seconds since 1970,
/// HTTP's own resolution (RFC 9110 §5.6.7), passed in by the edge.
public enum RFC9111 {}
