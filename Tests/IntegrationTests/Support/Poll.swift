/// Waits for a condition that no callback reports (a log line, a counter, a child's exit) by checking it
/// repeatedly until a deadline. This is the harness's only way to wait; it never sleeps a fixed time.
enum Poll {
    /// Returns the first non-nil value `probe` produces; throws `HarnessError.timedOut` after `timeout`.
    /// Errors thrown by `probe` end the wait at once.
    @discardableResult
    static func value<T>(
        _ what: String,
        timeout: Duration = .seconds(10),
        _ probe: () throws -> T?
    ) async throws -> T {
        let deadline = ContinuousClock.now + timeout
        var interval = Duration.milliseconds(1)
        while true {
            if let value = try probe() { return value }
            if ContinuousClock.now >= deadline { throw HarnessError.timedOut("\(what) (gave up after \(timeout))") }
            try await Task.sleep(for: interval)
            interval = min(interval * 2, .milliseconds(20))
        }
    }

    /// Returns once `condition` holds; throws `HarnessError.timedOut` after `timeout`.
    static func until(
        _ what: String,
        timeout: Duration = .seconds(10),
        _ condition: () throws -> Bool
    ) async throws {
        try await value(what, timeout: timeout) { try condition() ? true : nil }
    }
}
