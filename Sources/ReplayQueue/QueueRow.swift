/// A stored request with the bookkeeping the replayer needs but the admin API does not show.
struct QueueRow: Sendable, Equatable {
    var request: QueuedRequest
    /// When the age limit starts counting: when queued, or when an operator last retried it.
    var ageFrom: Int64
}
