/// Limits and timing of the offline queue (`queue.*` in the config).
public struct QueueSettings: Sendable, Equatable {
    /// The largest request body the queue keeps; the proxy answers a larger one as it would without a queue.
    public var maxBodySize: Int
    /// The most times a request is sent without an answer before it is dead-lettered.
    public var maxAttempts: Int
    /// How long a request may wait, from when it was queued (or last retried by an operator), before it is
    /// dead-lettered.
    public var maxAgeSeconds: Int64
    /// Milliseconds before the first replay of a request, and after its first failed attempt.
    public var backoffBase: Int64
    /// The longest wait between two attempts, in milliseconds.
    public var backoffMax: Int64

    public init(
        maxBodySize: Int = 1 << 20,
        maxAttempts: Int = 10,
        maxAgeSeconds: Int64 = 7 * 86_400,
        backoffBase: Int64 = 1_000,
        backoffMax: Int64 = 300_000
    ) {
        self.maxBodySize = maxBodySize
        self.maxAttempts = maxAttempts
        self.maxAgeSeconds = maxAgeSeconds
        self.backoffBase = backoffBase
        self.backoffMax = backoffMax
    }
}
