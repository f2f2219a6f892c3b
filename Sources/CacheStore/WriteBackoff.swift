import Logging
import Synchronization

/// Turns storing off for a while after a write error (a full disk, usually), so the proxy keeps serving without
/// a failing write per response. One outage logs once when it starts and once when storing works again,
/// however many writes fail in between.
final class WriteBackoff: Sendable {
    private struct State {
        var pausedUntil: Int64 = .min
        var inOutage = false
    }

    private let pause: Int64
    private let state = Mutex(State())

    init(pause: Int64) {
        self.pause = pause
    }

    func allowsWrites(now: Int64) -> Bool {
        state.withLock { now >= $0.pausedUntil }
    }

    func recordFailure(_ error: any Error, now: Int64, logger: Logger) {
        let starts = state.withLock { state in
            state.pausedUntil = now + pause
            defer { state.inOutage = true }
            return !state.inOutage
        }
        if starts {
            logger.error(
                "cache write failed; storing paused",
                metadata: ["error": "\(error)", "retry_in_s": "\(pause)"])
        }
    }

    func recordSuccess(logger: Logger) {
        let ends = state.withLock { state in
            defer { state.inOutage = false }
            return state.inOutage
        }
        if ends { logger.notice("cache writes work again; storing resumed") }
    }
}
