import Synchronization

/// Seconds that move only when a test says so, for the store's write back-off.
final class ManualClock: Sendable {
    private let seconds: Mutex<Int64>

    init(_ start: Int64 = 1_700_000_000) {
        seconds = Mutex(start)
    }

    var now: Int64 { seconds.withLock { $0 } }

    func advance(by delta: Int64) {
        seconds.withLock { $0 += delta }
    }
}
