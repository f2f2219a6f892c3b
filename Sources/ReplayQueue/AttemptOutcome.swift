import Upstream

/// How one send of a queued request ended.
package enum AttemptOutcome: Sendable, Equatable {
    /// The origin answered with a status line; what follows it does not matter.
    case answered(status: Int)
    /// No answer: unreachable, timed out, or the connection broke before a status line.
    case failed(UpstreamError)
}
