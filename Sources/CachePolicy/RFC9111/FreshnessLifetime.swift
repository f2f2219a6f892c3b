/// How long a response stays fresh after it was generated, and why (RFC 9111 §4.2.1).
public struct FreshnessLifetime: Sendable, Equatable {
    /// The `freshness_lifetime` of RFC 9111 §4.2.1, never negative.
    public var seconds: Int64
    public var source: FreshnessSource

    public init(seconds: Int64, source: FreshnessSource) {
        self.seconds = seconds
        self.source = source
    }
}
