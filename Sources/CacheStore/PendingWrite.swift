import HTTPWire

/// An index change queued for the next batch on the writer queue.
enum PendingWrite: Sendable {
    case commit(CommitJob)
    /// New head and times after a 304 (RFC 9111 §4.3.4); the body stays.
    case refresh(key: String, variant: String, head: ResponseHead, requestTime: Int64, responseTime: Int64)

    var key: String {
        switch self {
        case .commit(let job): job.entry.key
        case .refresh(let key, _, _, _, _): key
        }
    }
}
