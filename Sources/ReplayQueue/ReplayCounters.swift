/// What the replayer did since this `ReplayQueue` was created, for metrics and stats.
public struct ReplayCounters: Sendable, Equatable {
    /// Requests the origin answered (any status but 401/403).
    public var delivered: Int
    /// Attempts that got no answer (unreachable, timed out, connection lost).
    public var failed: Int
    /// Requests that were dead-lettered.
    public var deadLettered: Int
    /// Attempts answered 401 or 403, each of which held its origin's queue.
    public var held: Int

    public init(delivered: Int = 0, failed: Int = 0, deadLettered: Int = 0, held: Int = 0) {
        self.delivered = delivered
        self.failed = failed
        self.deadLettered = deadLettered
        self.held = held
    }
}
