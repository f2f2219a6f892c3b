import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Issues last-access stamps: wall-clock milliseconds, but strictly increasing, so least-recently-used order is
/// exact even when many hits share a millisecond.
final class AccessClock: Sendable {
    private let last: Mutex<Int64>

    init(after latest: Int64) {
        last = Mutex(latest)
    }

    func next() -> Int64 {
        let now = AccessClock.wallMillis()
        return last.withLock { last in
            last = max(now, last + 1)
            return last
        }
    }

    static func wallMillis() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }
}
