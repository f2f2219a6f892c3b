import HTTPWire
import Upstream

/// The replayer's decisions, as pure functions of the request's record, the settings and `now` (milliseconds).
package enum ReplayPolicy {
    /// When a newly queued request is first sent: one back-off base after the failure that queued it.
    package static func firstAttempt(queuedAt now: Int64, settings: QueueSettings) -> Int64 {
        now + max(settings.backoffBase, 0)
    }

    /// Whether a request must be dead-lettered before it is sent again; nil when it may be sent.
    /// `ageFrom` is when it was queued, or last retried by an operator.
    package static func expiry(attempts: Int, ageFrom: Int64, now: Int64, settings: QueueSettings) -> String? {
        if attempts >= max(settings.maxAttempts, 1) {
            return "no answer after \(attempts) attempt\(attempts == 1 ? "" : "s")"
        }
        let maxAge = settings.maxAgeSeconds.multipliedReportingOverflow(by: 1000)
        if !maxAge.overflow, now - ageFrom > maxAge.partialValue {
            return "queued longer than \(settings.maxAgeSeconds) s"
        }
        return nil
    }

    /// The verdict on an attempt that was the request's `attempts`-th send.
    /// - Parameter jitter: in `0..<1`, spreads retries of many queues (see `backoff`).
    /// Answers that say the request was not handled and may succeed later.
    package static let tryLaterStatuses: Set<Int> = [408, 429, 502, 503, 504]

    package static func verdict(
        after outcome: AttemptOutcome, attempts: Int, ageFrom: Int64, now: Int64, settings: QueueSettings,
        jitter: Double
    ) -> AttemptVerdict {
        switch outcome {
        case .answered(let status) where status == 401 || status == 403:
            // Credentials expired or revoked: later requests carry the same ones, so the whole origin waits for an
            // operator rather than burning every request's attempts (issue 5).
            return .hold(reason: "\(status) \(ResponseHead.standardReason(for: status))", status: status)
        case .answered(let status) where Self.tryLaterStatuses.contains(status):
            // "Not now" (RFC 9110 §15.5.9, §15.6.3–5, RFC 6585 §4): the origin or a gateway in front of it did
            // not handle the write, so dropping it would lose it. Retried like an unreachable origin.
            let message = "answered \(status) \(ResponseHead.standardReason(for: status))"
            if let reason = expiry(attempts: attempts, ageFrom: ageFrom, now: now, settings: settings) {
                return .deadLetter(reason: reason, error: message)
            }
            return .retry(at: now + backoff(failures: attempts, settings: settings, jitter: jitter), error: message)
        case .answered(let status):
            // Any other answer means the origin received and handled the request, whatever it thought of it.
            return .deliver(status: status)
        case .failed(let error):
            let message = "\(error.kind.rawValue): \(error.details)"
            if isPermanent(error) {
                return .deadLetter(reason: "the origin can never be reached (\(error.kind.rawValue))", error: message)
            }
            if let reason = expiry(attempts: attempts, ageFrom: ageFrom, now: now, settings: settings) {
                return .deadLetter(reason: reason, error: message)
            }
            return .retry(at: now + backoff(failures: attempts, settings: settings, jitter: jitter), error: message)
        }
    }

    /// Milliseconds to wait after the `failures`-th failed send: `backoffBase × 2^(failures − 1)`, capped at
    /// `backoffMax`, then shortened by up to 10% (`jitter`), so queues that failed together do not retry together,
    /// and the cap is never passed.
    package static func backoff(failures: Int, settings: QueueSettings, jitter: Double) -> Int64 {
        let base = max(settings.backoffBase, 1)
        let cap = max(settings.backoffMax, base)
        var delay = base
        var doublings = max(failures - 1, 0)
        while doublings > 0 && delay < cap {
            delay = delay > cap / 2 ? cap : delay * 2
            doublings -= 1
        }
        delay = min(delay, cap)
        let shortening = Int64(Double(delay) * 0.1 * min(max(jitter, 0), 1))
        return max(delay - shortening, 1)
    }

    /// Refusals that no retry can change: the address is forbidden by policy, or is Larder itself.
    private static func isPermanent(_ error: UpstreamError) -> Bool {
        switch error.kind {
        case .destinationIPProhibited, .loopDetected: true
        default: false
        }
    }
}
