import ReplayQueue
import Synchronization

/// The wall clock in milliseconds, plus an offset a test can move forward to make queued requests old.
final class ShiftedClock: Sendable {
    private let offset = Mutex<Int64>(0)

    var now: Int64 { ReplayQueue.wallClockMilliseconds() + offset.withLock { $0 } }

    func advance(milliseconds: Int64) {
        offset.withLock { $0 += milliseconds }
    }
}
